import fc from 'fast-check'
import { isIdRef, type Template } from '../../../testing/request-steps.js'
import {
  anyValue,
  EDGE_DATES,
  idRef,
  jsonObject,
  mutated,
  mutations,
  PAST_EDGE_DATES,
  pathId,
  strings,
  texts,
  timestampValue,
} from '../../../testing/request-values.js'
import { MemberResource } from '../api/schemas.js'

/**
 * Generated Member bodies for the tests (requests.ts): mostly valid, so that creates
 * succeed, with boundary and hostile values; and the members every sequence of the
 * differential test starts from.
 */

// ---------------------------------------------------------------- members

/**
 * Members created before the sequences (the same on every database), so that searches
 * page, sort and match among many: shared prefixes, ties, letter case, `%`, `_`, `\\`,
 * non-ASCII letters, edge birth dates.
 */
export const SEED_MEMBERS: ReadonlyArray<Record<string, unknown>> = [
  ['Taro', 'Yamada', '1990-04-01', 'taro.yamada@example.com'],
  ['Taro', 'Suzuki', '1985-12-31', 'taro.suzuki@example.com'],
  ['taro', 'yamada', '2000-02-29', 'lower.taro@example.com'],
  ['Ta%ro', 'Tanaka', '1970-01-01', 'percent@example.com'],
  ['Ta_ro', 'Tanaka', '1969-12-31', 'underscore@example.com'],
  ['Ta\\ro', 'Ｙａｍａｄａ', '0001-01-01', 'backslash@example.com'],
  ['Tarō', 'Yamashita', '0099-12-31', 'Taro.Macron@Example.com'],
  ['Hanako', 'Yamada', '2024-02-29', 'hanako@example.jp'],
  ['日本', '太郎', '1999-01-01', 'nihon@example.jp'],
  ['😀smile', 'Émile', '1582-10-10', 'emoji@example.org'],
  ['Émile', 'Zola', '1899-12-31', 'emile@example.fr'],
  ['İlker', 'ßtraße', '1950-06-15', 'ilker@example.com'],
].map(([firstName, lastName, dateOfBirth, emailAddress], index) => ({
  firstName,
  lastName,
  genderCode: String(index % 3),
  dateOfBirth,
  emailAddress,
  telephoneNumber: index % 2 === 0 ? '090-1234-5678' : null,
  zipCode: index % 3 === 0 ? '100-0001' : null,
  address: index % 4 === 0 ? 'Tokyo' : '',
  credential: { password: 'fuzz-password' },
}))

const FIRST_NAMES = [
  'Taro',
  'Hanako',
  'taro',
  'Ta%ro',
  'Ta_ro',
  'Ta\\ro',
  '日本',
  '😀smile',
  'Émile',
]
const LAST_NAMES = ['Yamada', 'Suzuki', 'yamada', 'Tanaka', 'Ｙａｍａｄａ']
const EMAILS = [
  'taro@example.com',
  'TARO@example.com',
  'Hanako@Example.COM',
  'jiro@example.jp',
  'x@example.org',
  'y.z+tag@example.net',
  'saburo@example.com',
  'shiro@example.co.jp',
  'goro@example.org',
  'a@example.com',
  'b@example.com',
]
const PASSWORD = 'fuzz-password'
const MEMBER_UNKNOWN_FIELDS = ['extra', 'version', '__proto__', 'password', 'firstname']

const name = fc.oneof(
  { weight: 3, arbitrary: strings(...FIRST_NAMES, ...LAST_NAMES) },
  {
    weight: 2,
    arbitrary: anyValue(
      strings(
        'a'.repeat(128),
        'a'.repeat(129),
        '😀'.repeat(64),
        '😀'.repeat(65),
        '😀'.repeat(128),
        '😀'.repeat(129),
        ' ',
        'İstanbul',
        'ß',
        'Ta\u0000ro',
      ),
    ),
  },
)
const emailAddress = anyValue(
  strings(
    ...EMAILS,
    `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(59)}.jp`, // 256
    `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(60)}.jp`, // 257
    'a@b',
    'not-an-email',
    'ü@example.com',
    'a@例え.jp',
    '"quoted"@example.com',
    'a\u0000@example.com',
  ),
)
const upTo = (max: number) => strings('x'.repeat(max), 'x'.repeat(max + 1), '090-1234-5678')
/** Per Member field: every value it may get (mutations of a valid member). */
const memberFieldValues: Record<string, fc.Arbitrary<Template | undefined>> = {
  firstName: name,
  lastName: name,
  genderCode: anyValue(strings('0', '1', '2', '3', '9', '01', ' 1', '１')),
  dateOfBirth: anyValue(strings(...EDGE_DATES)),
  emailAddress,
  telephoneNumber: anyValue(upTo(20)),
  zipCode: anyValue(upTo(20)),
  address: anyValue(upTo(256)),
  createdAt: timestampValue,
  lastModifiedAt: timestampValue,
}

const validProfile = fc.record({
  firstName: fc.constantFrom(...FIRST_NAMES),
  lastName: fc.constantFrom(...LAST_NAMES),
  genderCode: fc.constantFrom('0', '1', '2'),
  // Edge dates here too (some are invalid): a valid member is the likeliest to reach storage.
  dateOfBirth: fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom('1990-04-01', '2000-02-29', '1970-01-01') },
    { weight: 1, arbitrary: fc.constantFrom(...PAST_EDGE_DATES) },
  ),
  emailAddress: fc.constantFrom(...EMAILS),
  telephoneNumber: fc.constantFrom(undefined, null, '', '090-1234-5678'),
  zipCode: fc.constantFrom(undefined, null, '100-0001'),
  address: fc.constantFrom(undefined, null, '', 'Tokyo'),
})
type Profile = typeof validProfile extends fc.Arbitrary<infer T> ? T : never

/** The profile fields of a Member, in the order of the spec's table: those a client writes. */
const MEMBER_KEYS = Object.keys(MemberResource.properties)
const PROFILE_KEYS = MEMBER_KEYS.slice(
  MEMBER_KEYS.indexOf('firstName'),
  MEMBER_KEYS.indexOf('credential'),
) as readonly (keyof Profile)[]

const password = anyValue(
  strings(
    PASSWORD,
    'fuzz-pw', // 7
    'fuzz-pwd', // 8
    `${PASSWORD}${'-'.repeat(19)}`, // 32
    `${PASSWORD}${'-'.repeat(20)}`, // 33
    '😀'.repeat(8),
  ),
)
const credential: fc.Arbitrary<Template | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant([`{"password":${JSON.stringify(PASSWORD)}}`]) },
  {
    weight: 3,
    arbitrary: fc
      .record(
        {
          signId: fc.oneof(emailAddress, fc.constantFrom<Template | undefined>(['""'], ['null'])),
          password,
          passwordLastChangedAt: timestampValue,
          lastModifiedAt: timestampValue,
          extra: fc.constantFrom<Template>(['1'], ['null']),
        },
        { requiredKeys: ['password'] },
      )
      .map((fields) => jsonObject(Object.entries(fields))),
  },
  { weight: 1, arbitrary: anyValue(texts(['"x"'])) },
)

function profileFields(profile: Profile): Array<[string, Template | undefined]> {
  return PROFILE_KEYS.map((key) => {
    const value = profile[key]
    return [key, value === undefined ? undefined : [JSON.stringify(value)]]
  })
}

/** POST /api/v1/members bodies: valid, with 1 or 2 fields changed, or not even JSON. */
export const memberCreateBody: fc.Arbitrary<Template> = fc
  .tuple(
    validProfile,
    mutations(
      {
        ...memberFieldValues,
        memberId: fc.oneof(
          idRef('member').map((ref): Template => [ref]),
          anyValue(strings('ABCDEFGHIJ')),
        ),
        credential,
      },
      MEMBER_UNKNOWN_FIELDS,
    ),
  )
  .map(([profile, changes]) =>
    mutated([...profileFields(profile), ['credential', [`{"password":"${PASSWORD}"}`]]], changes),
  )

/** POST /api/v1/members bodies that pass validation, mostly (edge birth dates included). */
export const validMemberCreateBody: fc.Arbitrary<Template> = validProfile.map((profile) =>
  jsonObject([...profileFields(profile), ['credential', [`{"password":"${PASSWORD}"}`]]]),
)

/** PUT /api/v1/members/{id}: the body's memberId is the path's, mostly. */
export const memberUpdate = fc
  .tuple(
    pathId('member'),
    validProfile,
    mutations(
      {
        ...memberFieldValues,
        memberId: fc.oneof(
          idRef('member').map((ref): Template => [ref]),
          anyValue(strings('ABCDEFGHIJ', 'A'.repeat(11))),
        ),
        credential: fc.oneof(
          texts(['null'], ['{}'], [`{"password":"${PASSWORD}"}`], ['{"signId":null}']),
          anyValue(texts(['"x"'])),
        ),
      },
      MEMBER_UNKNOWN_FIELDS,
    ),
  )
  .map(([id, profile, changes]) => {
    const sameId: Template = isIdRef(id) ? [id] : [JSON.stringify(safeDecode(id.raw))]
    return {
      id,
      body: mutated([['memberId', sameId], ...profileFields(profile)], changes),
    }
  })

function safeDecode(raw: string): string {
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}
