import fc from 'fast-check'

/**
 * Generated request sequences over every endpoint, built from the route schemas: mostly
 * valid values (so that creates succeed and later steps find what they made), boundary
 * values, and hostile ones: JSON numbers in every textual form, NUL, lone surrogates,
 * bytes that are not UTF-8, dates at and past the edges, long and odd ids.
 *
 * A body is a Template: JSON text in pieces, so that it can say what JSON.stringify
 * cannot (`1.0`, `-0`, `1e309`, `"\ud800"`, a raw 0xFF byte) and can name a resource
 * created earlier in the sequence, which each server knows by its own id.
 */

export type IdKind = 'todo' | 'member'

/** How a reference is spelled: the id itself, or a near miss of it. */
export type IdVariant = 'same' | 'swapcase' | 'nul' | 'space' | 'short' | 'long'

/**
 * A resource of `ref`'s kind that exists at this point of the sequence: the `index`-th
 * newest (0 the newest; modulo their number), spelled as `variant` says.
 */
export interface IdRef {
  readonly ref: IdKind
  readonly index: number
  readonly variant: IdVariant
}

/** A path segment sent as is (already percent-encoded). */
export interface RawId {
  readonly raw: string
}

export type PathId = IdRef | RawId

/** One byte, sent as it is (bodies that are not valid UTF-8). */
export interface Byte {
  readonly byte: number
}

/** JSON text in pieces: text as is, a reference as a JSON string of the id, a raw byte. */
export type Piece = string | IdRef | Byte
export type Template = readonly Piece[]

export interface Step {
  readonly method: string
  readonly collection: 'todos' | 'members'
  readonly id?: PathId
  /** `?name=...`, already percent-encoded; only on the member collection. */
  readonly query?: string
  readonly body?: Template
  readonly headers: Readonly<Record<string, string>>
}

export const isIdRef = (value: unknown): value is IdRef =>
  typeof value === 'object' && value !== null && 'ref' in value

const isByte = (value: Piece): value is Byte => typeof value === 'object' && 'byte' in value

/** A reference's id as this variant spells it. */
export function applyVariant(id: string, variant: IdVariant): string {
  switch (variant) {
    case 'same':
      return id
    case 'swapcase':
      // Every letter in the other case (not toUpperCase: a random id may have no lower-case letter).
      return id.replace(/[A-Za-z]/g, (letter) =>
        letter === letter.toUpperCase() ? letter.toLowerCase() : letter.toUpperCase(),
      )
    case 'nul':
      return `${id}\u0000`
    case 'space':
      return `${id} `
    case 'short':
      return id.slice(0, -1)
    case 'long':
      return `${id}x`
  }
}

export interface RenderedRequest {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string>
  readonly body?: string | Buffer
}

/** The body as sent: a string, or a Buffer when it holds raw bytes. */
export function renderTemplate(
  template: Template,
  resolve: (ref: IdRef) => string,
): string | Buffer {
  const text = (piece: string | IdRef) =>
    typeof piece === 'string' ? piece : JSON.stringify(resolve(piece))
  if (!template.some(isByte)) return template.map((piece) => text(piece as string | IdRef)).join('')
  return Buffer.concat(
    template.map((piece) =>
      isByte(piece) ? Buffer.from([piece.byte]) : Buffer.from(text(piece), 'utf8'),
    ),
  )
}

/** The request one server gets for `step`; `resolve` gives that server's id for a reference. */
export function renderStep(step: Step, resolve: (ref: IdRef) => string): RenderedRequest {
  let path = `/api/v1/${step.collection}`
  if (step.id !== undefined) {
    path += `/${isIdRef(step.id) ? encodeURIComponent(resolve(step.id)) : step.id.raw}`
  }
  path += step.query ?? ''
  return {
    method: step.method,
    path,
    headers: { ...step.headers },
    ...(step.body !== undefined && { body: renderTemplate(step.body, resolve) }),
  }
}

/** A reference as the generator made it: `{member 0}` is the newest member. */
const refNotation = (id: IdRef) =>
  `{${id.ref} ${id.index}${id.variant === 'same' ? '' : ` ${id.variant}`}}`

/**
 * One line a person can read: references as `name` shows them (by default `{member 0}`),
 * raw bytes as `\xFF`, control characters and lone surrogates as `<U+0000>`.
 */
export function describeStep(step: Step, name: (ref: IdRef) => string = refNotation): string {
  let path = `/api/v1/${step.collection}`
  if (step.id !== undefined) path += `/${isIdRef(step.id) ? name(step.id) : shorten(step.id.raw)}`
  path += shorten(step.query ?? '')
  const headers = Object.entries(step.headers)
    .map(([header, value]) => `${header}: ${value}`)
    .join('; ')
  const body =
    step.body === undefined
      ? ''
      : ` body ${shorten(
          step.body
            .map((piece) =>
              typeof piece === 'string'
                ? visible(piece)
                : isByte(piece)
                  ? `\\x${piece.byte.toString(16).toUpperCase().padStart(2, '0')}`
                  : name(piece),
            )
            .join(''),
        )}`
  return `${step.method} ${path}${headers === '' ? '' : ` [${headers}]`}${body}`
}

/** Control characters, line and paragraph separators, and lone surrogates as `<U+0000>`. */
function visible(text: string): string {
  let result = ''
  for (let at = 0; at < text.length; at += 1) {
    const unit = text.charCodeAt(at)
    const next = text.charCodeAt(at + 1)
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      result += text.slice(at, at + 2)
      at += 1
    } else if (
      unit < 0x20 ||
      (unit >= 0x7f && unit <= 0x9f) ||
      unit === 0x2028 ||
      unit === 0x2029 ||
      (unit >= 0xd800 && unit <= 0xdfff)
    ) {
      result += `<U+${unit.toString(16).toUpperCase().padStart(4, '0')}>`
    } else {
      result += text[at]
    }
  }
  return result
}

/** Long runs of one character as `a×2000`, and at most 400 characters in all. */
function shorten(text: string): string {
  const folded = text.replace(/(.)\1{19,}/gsu, (run, char: string) => `${char}×${[...run].length}`)
  return folded.length > 400 ? `${folded.slice(0, 400)}…` : folded
}

// ---------------------------------------------------------------- JSON values

const jsonString = (value: string): Template => [JSON.stringify(value)]
const strings = (...values: string[]) => fc.constantFrom(...values).map(jsonString)
const texts = (...values: Template[]) => fc.constantFrom(...values)

/** A JSON number in each of its textual forms, and forms a JavaScript number cannot hold. */
export const JSON_NUMBER_TEXTS = [
  '1',
  '1.0',
  '1e0',
  '1E+0',
  '10e-1',
  '-0',
  '-0.0',
  '0e5',
  '1e309',
  '-1e309',
  '1e-400',
  '99999999999999999999999',
  '9007199254740993',
  '0.1',
] as const

/** Values of the wrong JSON type for a string field. */
const wrongType: fc.Arbitrary<Template> = fc.oneof(
  fc.constantFrom(...JSON_NUMBER_TEXTS).map((text) => [text]),
  texts(['true'], ['false'], ['[]'], ['{}'], ['["a"]'], ['{"a":"b"}']),
)

/** Strings a database may not hold or may hold differently: as JSON text, escapes included. */
const hostileString: fc.Arbitrary<Template> = fc.oneof(
  texts(
    ['"\\u0000"'],
    ['"a\\u0000b"'],
    ['"\\ud800"'],
    ['"x\\udfff"'],
    ['"\\udc00\\ud800"'],
    ['"\\ud83d\\ude00"'],
    ['"\u0000"'], // a raw control character: not JSON
    ['"\\u2028\\u2029"'],
    ['"\\\\"'],
    ['"%_\\\\"'],
    ['"\\ufeff"'],
    ['"\\uffff"'],
  ),
  // Bytes that are not UTF-8: a stray byte, an encoded surrogate (CESU-8), an overlong NUL,
  // a code point past U+10FFFF.
  texts(
    ['"', { byte: 0xff }, '"'],
    ['"a', { byte: 0xed }, { byte: 0xa0 }, { byte: 0x80 }, '"'],
    ['"', { byte: 0xc0 }, { byte: 0x80 }, '"'],
    ['"', { byte: 0xf4 }, { byte: 0x90 }, { byte: 0x80 }, { byte: 0x80 }, '"'],
  ),
)

const nullEmptyOrAbsent = fc.constantFrom<Template | undefined>(['null'], ['""'], undefined)

/** Any value a string field may get: its boundary values mostly, else null, "", hostile, wrong. */
function anyValue(boundary: fc.Arbitrary<Template>): fc.Arbitrary<Template | undefined> {
  return fc.oneof(
    { weight: 5, arbitrary: boundary },
    { weight: 2, arbitrary: nullEmptyOrAbsent },
    { weight: 2, arbitrary: hostileString },
    { weight: 1, arbitrary: wrongType },
  )
}

/** A JSON object from fields in order; an undefined value leaves the field out. */
export function jsonObject(
  fields: ReadonlyArray<readonly [string, Template | undefined]>,
): Template {
  const pieces: Piece[] = ['{']
  let first = true
  for (const [name, value] of fields) {
    if (value === undefined) continue
    if (!first) pieces.push(',')
    first = false
    pieces.push(`${JSON.stringify(name)}:`, ...value)
  }
  pieces.push('}')
  // Adjacent text pieces merged, so that a counterexample reads as JSON.
  return pieces.reduce<Piece[]>((merged, piece) => {
    const last = merged[merged.length - 1]
    if (typeof piece === 'string' && typeof last === 'string')
      merged[merged.length - 1] = last + piece
    else merged.push(piece)
    return merged
  }, [])
}

interface Mutation {
  readonly field: string
  readonly value: Template | undefined
}

/** 0 to 2 fields of an otherwise valid body replaced by other values (shrinks to valid). */
const mutations = (
  fields: Record<string, fc.Arbitrary<Template | undefined>>,
  unknownFields: readonly string[],
) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant<Mutation[]>([]) },
    {
      weight: 3,
      arbitrary: fc.array(
        fc.oneof(
          ...Object.entries(fields).map(([field, value]) =>
            value.map((replacement): Mutation => ({ field, value: replacement })),
          ),
          // A field the resource does not have.
          fc.constantFrom(...unknownFields).map((field): Mutation => ({ field, value: ['"x"'] })),
        ),
        { minLength: 1, maxLength: 2 },
      ),
    },
  )

function mutated(
  fields: Array<[string, Template | undefined]>,
  changes: readonly Mutation[],
): Template {
  const result = [...fields]
  for (const { field, value } of changes) {
    const at = result.findIndex(([name]) => name === field)
    if (at >= 0) result[at] = [field, value]
    else result.push([field, value])
  }
  return jsonObject(result)
}

// ---------------------------------------------------------------- ids

const NON_SAME_VARIANTS: readonly IdVariant[] = ['swapcase', 'nul', 'space', 'short', 'long']

const idRef = (kind: IdKind): fc.Arbitrary<IdRef> =>
  fc.record({
    ref: fc.constant(kind),
    index: fc.nat({ max: 7 }),
    variant: fc.oneof(
      { weight: 6, arbitrary: fc.constant<IdVariant>('same') },
      { weight: 1, arbitrary: fc.constantFrom(...NON_SAME_VARIANTS) },
    ),
  })

/** Path segments naming nothing: NUL, invalid UTF-8 (a lone surrogate), long, odd, empty. */
export const HOSTILE_PATH_IDS: readonly string[] = [
  '%00',
  'a%00',
  '%00a',
  '%ED%A0%80',
  'x%ED%B0%80',
  '%FF',
  '%C0%80',
  'a'.repeat(2000),
  'A'.repeat(10),
  '0000000000',
  encodeURIComponent('日本語の十文字のＩＤ'),
  encodeURIComponent('😀'),
  encodeURIComponent('e\u0301'),
  '',
  '%20',
  '%25',
  '%',
  '%ZZ',
  "'%20or%20'1'%3D'1",
  '00000000-0000-7000-8000-000000000000',
  'null',
]

const rawId: fc.Arbitrary<RawId> = fc.constantFrom(...HOSTILE_PATH_IDS).map((raw) => ({ raw }))

const pathId = (kind: IdKind): fc.Arbitrary<PathId> =>
  fc.oneof({ weight: 3, arbitrary: idRef(kind) }, { weight: 1, arbitrary: rawId })

// ---------------------------------------------------------------- dates

const isoDate = (date: Date) => date.toISOString().slice(0, 10)
const DAY_MS = 24 * 60 * 60 * 1000
const now = Date.now()

/** Dates at and past the edges: year 0, 1 and 9999, 10000, leap days, today, malformed. */
export const EDGE_DATES: readonly string[] = [
  '0000-01-01',
  '0001-01-01',
  '0099-12-31',
  '0100-03-01',
  '1582-10-10',
  '1899-12-31',
  '1969-12-31',
  '1970-01-01',
  '9999-12-31',
  '10000-01-01',
  '2024-02-29',
  '2023-02-29',
  '2023-02-30',
  '2023-13-01',
  '2023-00-10',
  '2023-1-1',
  '20230101',
  '-0001-01-01',
  '+002023-01-01',
  '2023-01-01T00:00:00.000Z',
  '2023-01-01 ',
  isoDate(new Date(now)),
  isoDate(new Date(now - DAY_MS)),
  isoDate(new Date(now + DAY_MS)),
]

/** The edge dates that are valid birth dates (decisions §1), and year 0000, which is not. */
const PAST_EDGE_DATES: readonly string[] = [
  '0000-01-01',
  '0001-01-01',
  '0099-12-31',
  '0100-03-01',
  '1582-10-10',
  '1899-12-31',
  '1969-12-31',
  '2024-02-29',
  isoDate(new Date(now - DAY_MS)),
]

// ---------------------------------------------------------------- todos

const VALID_TITLES = ['Buy milk', 'a', '日本語のタイトル', '😀', 'x'.repeat(30), 'Tab\there']
const todoTitle = fc.oneof(
  { weight: 3, arbitrary: strings(...VALID_TITLES) },
  {
    weight: 2,
    arbitrary: anyValue(
      strings(
        'x'.repeat(31),
        '😀'.repeat(15),
        '😀'.repeat(16),
        '😀'.repeat(30),
        '😀'.repeat(31),
        'e\u0301'.repeat(15),
        'e\u0301'.repeat(16),
        ' ',
        `${'x'.repeat(29)}\u0000`,
      ),
    ),
  },
)
const timestampValue = anyValue(strings('2020-01-01T00:00:00.000Z', '2020-01-01', 'now'))

/** POST /api/v1/todos bodies: a title, or a Todo posted back; 1 or 2 fields changed. */
export const todoBody: fc.Arbitrary<Template> = fc
  .tuple(
    fc.constantFrom(...VALID_TITLES),
    fc.option(idRef('todo')),
    mutations(
      {
        todoTitle,
        todoId: fc.oneof(
          idRef('todo').map((ref): Template => [ref]),
          anyValue(strings('00000000-0000-7000-8000-000000000000')),
        ),
        finished: fc.oneof(texts(['true'], ['false']), anyValue(strings('yes', 'true'))),
        createdAt: timestampValue,
      },
      ['extra', 'todoid', 'links', '__proto__'],
    ),
  )
  .map(([title, postedBack, changes]) =>
    mutated(
      [
        ['todoId', postedBack === null ? undefined : [postedBack]],
        ['todoTitle', [JSON.stringify(title)]],
        ['finished', postedBack === null ? undefined : ['false']],
        ['createdAt', postedBack === null ? undefined : ['"2020-01-01T00:00:00.000Z"']],
      ],
      changes,
    ),
  )

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

/** Todos created before the sequences; the first is then finished. */
export const SEED_TODOS: readonly string[] = ['Buy milk', 'Write tests', '日本語のタイトル']

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

const PROFILE_KEYS = [
  'firstName',
  'lastName',
  'genderCode',
  'dateOfBirth',
  'emailAddress',
  'telephoneNumber',
  'zipCode',
  'address',
] as const

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
const memberUpdate = fc
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

/** Bodies that are not a JSON object, or not JSON, or JSON that parsers may read differently. */
const oddBody: fc.Arbitrary<Template> = fc.oneof(
  texts(
    [''],
    [' '],
    ['{'],
    ['null'],
    ['[]'],
    ['"x"'],
    ['1e309'],
    ['{"todoTitle":"a","todoTitle":"b"}'],
    ['\ufeff{"todoTitle":"bom"}'],
    [' {"todoTitle":"spaces"}\n'],
    ['{"todoTitle":"a"} x'],
    ['{"todoTitle":"a",}'],
    ["{'todoTitle':'a'}"],
    ['{"todoTitle":"\\x41"}'],
    [`{"todoTitle":"${'x'.repeat(70_000)}"}`],
  ),
  hostileString.map((value) => jsonObject([['todoTitle', value]])),
)

// ---------------------------------------------------------------- search query

/** Query integers in every text form (percent-encoded where a URL needs it). */
export const QUERY_NUMBERS: readonly string[] = [
  '0',
  '1',
  '2',
  '5',
  '20',
  '100',
  '101',
  '-1',
  '1e3',
  '5.0',
  '0x10',
  '%205',
  '5%20',
  '+5',
  '%2B5',
  '-0',
  '007',
  'Infinity',
  '-Infinity',
  'NaN',
  '1e309',
  '99999999999999999999999',
  '9007199254740991',
  '9007199254740992',
  '2147483648',
  '',
  '%00',
  '%EF%BC%95', // a fullwidth 5
]

const NAME_PREFIXES: readonly string[] = [
  'T',
  'Ta',
  'Taro',
  't',
  'ta',
  'Y',
  'H',
  'Ta%25',
  'Ta_',
  'Ta%5C',
  '%25',
  '_',
  '%5C',
  encodeURIComponent('日'),
  encodeURIComponent('😀'),
  encodeURIComponent('É'),
  encodeURIComponent('Ｙ'),
  '',
  '%20',
  '%00',
  'T%00',
  '%ED%A0%80',
  '%FF',
  'a'.repeat(129),
  'a'.repeat(2000),
]
const SORTS: readonly string[] = [
  'firstName',
  'firstName,asc',
  'lastName,DESC',
  'lastName,desc',
  'dateOfBirth,desc',
  'emailAddress',
  'memberId',
  'createdAt,desc',
  'lastModifiedAt',
  'firstName%2Cdesc',
  'password',
  'firstName,up',
  'FIRSTNAME',
  '',
  ',',
  'firstName,asc,extra',
]

/** Mostly values that pass (so that searches find members), else any of `all`. */
const usually = (usual: readonly string[], all: readonly string[]) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...usual) },
    { weight: 1, arbitrary: fc.constantFrom(...all) },
  )

/** `name=value` pairs: none, one (mostly) or the parameter repeated. */
const parameter = (name: string, values: fc.Arbitrary<string>) =>
  fc
    .oneof(
      { weight: 2, arbitrary: fc.constant([]) },
      { weight: 4, arbitrary: values.map((value) => [value]) },
      { weight: 1, arbitrary: fc.array(values, { minLength: 2, maxLength: 2 }) },
    )
    .map((chosen) => chosen.map((value) => `${name}=${value}`))

const namePrefix = usually(
  [
    'T',
    'Ta',
    'Taro',
    'Tar',
    't',
    'H',
    'Y',
    'Ta%25',
    'Ta_',
    'Ta%5C',
    ...['日', 'É', 'İ'].map(encodeURIComponent),
  ],
  NAME_PREFIXES,
)

export const searchQuery: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(
      { weight: 6, arbitrary: namePrefix.map((value) => [`name=${value}`]) },
      { weight: 1, arbitrary: parameter('name', namePrefix) },
    ),
    parameter('page', usually(['0', '0', '1'], QUERY_NUMBERS)),
    parameter('size', usually(['1', '2', '3', '20'], QUERY_NUMBERS)),
    parameter(
      'sort',
      usually(
        ['firstName', 'lastName,desc', 'dateOfBirth,desc', 'emailAddress', 'memberId'],
        SORTS,
      ),
    ),
    fc.oneof(
      { weight: 3, arbitrary: fc.constant([]) },
      {
        weight: 1,
        arbitrary: parameter('unpaged', usually(['true'], ['false', '1', 'TRUE', 'yes', ''])),
      },
    ),
    fc.constantFrom([], [], [], ['other=1'], ['name'], ['page'], ['&']),
  )
  .map((parts) => `?${parts.flat().join('&')}`)

// ---------------------------------------------------------------- headers and steps

const JSON_TYPE = { 'content-type': 'application/json' }
const contentType = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Record<string, string>>(JSON_TYPE) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Record<string, string>>(
      {},
      { 'content-type': 'application/json; charset=utf-8' },
      { 'content-type': 'text/plain' },
    ),
  },
)
const conditions = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Record<string, string>>({}) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Record<string, string>>(
      { 'if-match': '"1"' },
      { 'if-match': '"2"' },
      { 'if-match': '*' },
      { 'if-match': 'W/"1"' },
      { 'if-none-match': '"1"' },
      { 'if-none-match': '"2"' },
    ),
  },
)
const idempotencyKey = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Record<string, string>>({}) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('key-1', 'key-2')
      .map((key): Record<string, string> => ({ 'idempotency-key': key })),
  },
)
const language = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Record<string, string>>({}) },
  { weight: 1, arbitrary: fc.constant<Record<string, string>>({ 'accept-language': 'ja' }) },
)
const merge = (...parts: Record<string, string>[]) => Object.assign({}, ...parts)

const post = (collection: Step['collection'], body: fc.Arbitrary<Template>) =>
  fc.tuple(body, contentType, idempotencyKey, language).map(
    ([template, type, key, lang]): Step => ({
      method: 'POST',
      collection,
      body: template,
      headers: merge(type, key, lang),
    }),
  )

const itemStep = (collection: Step['collection'], kind: IdKind, methods: fc.Arbitrary<string>) =>
  fc.tuple(methods, pathId(kind), conditions, language).map(
    ([method, id, condition, lang]): Step => ({
      method,
      collection,
      id,
      headers: merge(condition, lang),
    }),
  )

const itemMethods = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'HEAD', 'OPTIONS') },
  { weight: 1, arbitrary: fc.constantFrom('POST', 'PATCH') },
)

/** One request of a sequence, over every endpoint. */
export const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: post('todos', todoBody) },
  { weight: 4, arbitrary: post('members', memberCreateBody) },
  { weight: 4, arbitrary: itemStep('todos', 'todo', itemMethods) },
  {
    weight: 3,
    arbitrary: itemStep(
      'members',
      'member',
      itemMethods.map((method) => (method === 'PUT' ? 'GET' : method)),
    ),
  },
  {
    weight: 4,
    arbitrary: fc.tuple(memberUpdate, contentType, conditions, language).map(
      ([{ id, body }, type, condition, lang]): Step => ({
        method: 'PUT',
        collection: 'members',
        id,
        body,
        headers: merge(type, condition, lang),
      }),
    ),
  },
  {
    weight: 4,
    arbitrary: fc.tuple(fc.constantFrom('GET', 'GET', 'GET', 'HEAD'), searchQuery, language).map(
      ([method, query, lang]): Step => ({
        method,
        collection: 'members',
        query,
        headers: lang,
      }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom<Step['collection']>('todos', 'members'),
        fc.constantFrom('GET', 'HEAD', 'OPTIONS', 'DELETE', 'PUT'),
      )
      .map(([collection, method]): Step => ({ method, collection, headers: {} })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom<Step['collection']>('todos', 'members'), oddBody).map(
      ([collection, body]): Step => ({
        method: 'POST',
        collection,
        body,
        headers: JSON_TYPE,
      }),
    ),
  },
)

/** A request sequence: what one client might send, in order. */
export const requestSequence = (maxLength: number): fc.Arbitrary<Step[]> =>
  fc
    .tuple(
      // Creates first, so that the steps after them find items to read, change and delete.
      fc.array(
        fc.oneof(
          {
            weight: 1,
            arbitrary: post('todos', todoBody),
          },
          { weight: 2, arbitrary: post('members', validMemberCreateBody) },
        ),
        { maxLength: 2 },
      ),
      fc.array(step, { minLength: 1, maxLength }),
    )
    .map(([creates, steps]) => [...creates, ...steps].slice(0, Math.max(maxLength, 1)))
