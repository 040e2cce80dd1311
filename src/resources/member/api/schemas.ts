import { Type } from 'typebox'
import { object, text } from '../../../api/schemas/fields.js'
import { pageSchema } from '../../../api/schemas/page.js'
import { sortParameter } from '../../../api/schemas/sort.js'
import { DATE_RULE } from '../../../api/validation/keywords.js'
import type { PageFormat } from '../../../config/settings.js'
import { CODE_LISTS } from '../../../domain/common/code-lists.js'
import { SORTABLE_PROPERTIES } from '../domain/model.js'

const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] })
const GENDER_CODES = 'Code list CL_GENDER: 0 unknown, 1 men, 2 women.'
const DateTime = Type.String({ format: 'date-time', description: 'UTC, with milliseconds.' })

/** A Member as the API shows it; the password never appears. */
export const MemberResource = Type.Object(
  {
    memberId: Type.String({ minLength: 10, maxLength: 10 }),
    firstName: Type.String(),
    lastName: Type.String(),
    genderCode: Type.Unsafe<string>({
      type: 'string',
      enum: [...(CODE_LISTS.CL_GENDER ?? [])],
      description: GENDER_CODES,
    }),
    dateOfBirth: Type.String({ format: 'date', description: DATE_RULE }),
    emailAddress: Type.String(),
    telephoneNumber: NullableString,
    zipCode: NullableString,
    address: NullableString,
    credential: Type.Object(
      { signId: Type.String(), passwordLastChangedAt: DateTime, lastModifiedAt: DateTime },
      { title: 'Credential', additionalProperties: false },
    ),
    createdAt: DateTime,
    lastModifiedAt: DateTime,
  },
  {
    title: 'Member',
    // No `examples`: Spectral's example rule mistakes MemberPage's `content` property for
    // a media type map and the example in it for an Example object.
    additionalProperties: false,
  },
)

/** Service-set time stamps: typed like the resource's, but any value is a `Null` violation. */
const serviceSet = () => text({ format: 'date-time', mustBeNull: true })

/** The profile fields, with the same rules in both validation groups. */
const profile = {
  firstName: text({ notEmpty: true, size: [0, 128] }),
  lastName: text({ notEmpty: true, size: [0, 128] }),
  genderCode: text({ notEmpty: true, codeList: 'CL_GENDER', description: GENDER_CODES }),
  dateOfBirth: text({ notNull: true, format: 'date', past: true }),
  emailAddress: text({ notEmpty: true, size: [0, 256], email: true }),
  telephoneNumber: text({ size: [0, 20] }),
  zipCode: text({ size: [0, 20] }),
  address: text({ size: [0, 256] }),
}

/** POST body (the spec's "Create" group). */
export const MemberCreateBody = Type.Object(
  {
    memberId: text({ mustBeNull: true, description: 'Assigned by the service.' }),
    ...profile,
    credential: object(
      {
        signId: text({
          size: [0, 256],
          email: true,
          description: 'Null or empty: the e-mail address in lower case.',
        }),
        password: text({ notNull: true, size: [8, 32], description: 'Stored only as a hash.' }),
        passwordLastChangedAt: serviceSet(),
        lastModifiedAt: serviceSet(),
      },
      { notNull: true, title: 'CredentialCreate' },
    ),
    createdAt: serviceSet(),
    lastModifiedAt: serviceSet(),
  },
  {
    title: 'MemberCreate',
    additionalProperties: false,
    examples: [
      {
        firstName: 'Taro',
        lastName: 'Yamada',
        genderCode: '1',
        dateOfBirth: '1990-04-01',
        emailAddress: 'Taro.Yamada@example.com',
        telephoneNumber: '090-1234-5678',
        credential: { password: 'correct-horse' },
      },
    ],
  },
)

/** PUT body (the spec's "Update" group): the credential cannot be changed here. */
export const MemberUpdateBody = Type.Object(
  {
    memberId: text({ notEmpty: true, size: [10, 10], description: 'Must equal the path id.' }),
    ...profile,
    credential: object(
      {
        signId: text(),
        password: text(),
        passwordLastChangedAt: text({ format: 'date-time' }),
        lastModifiedAt: text({ format: 'date-time' }),
      },
      { mustBeNull: true },
    ),
    createdAt: serviceSet(),
    lastModifiedAt: serviceSet(),
  },
  {
    title: 'MemberUpdate',
    additionalProperties: false,
    examples: [
      {
        memberId: 'qhsGy4neFe',
        firstName: 'Taro',
        lastName: 'Yamada',
        genderCode: '1',
        dateOfBirth: '1990-04-01',
        emailAddress: 'taro@example.org',
        zipCode: '100-0001',
      },
    ],
  },
)

export const MemberPath = Type.Object({ memberId: Type.String() }, { additionalProperties: false })

export const MemberSearchQuery = Type.Object({
  name: text({ notEmpty: true, description: 'Prefix of the first or last name (case-sensitive).' }),
  page: Type.Integer({
    minimum: 0,
    // Larger values cannot be converted (decisions §2); stated so that no client sends one.
    maximum: Number.MAX_SAFE_INTEGER,
    default: 0,
    description: 'Zero-based page index.',
  }),
  size: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  sort: sortParameter(SORTABLE_PROPERTIES),
  unpaged: Type.Boolean({
    default: false,
    description: 'true: a plain array of every match (at most 1,000) instead of a page.',
  }),
})

/** The search page of the format the service answers. */
function memberPage(format: PageFormat) {
  return pageSchema(MemberResource, format, 'MemberPage')
}

/** 200 of the search: a page, or with unpaged=true a plain array. */
export function memberSearchResponses(format: PageFormat) {
  const page = memberPage(format)
  const list = Type.Array(MemberResource)
  // Plain JSON Schema objects for reply.compileSerializationSchema.
  const plain = (schema: object) => schema as Record<string, unknown>
  return { page: plain(page), list: plain(list), either: Type.Union([page, list]) }
}

/** The schemas the OpenAPI document names: Member, MemberCreate, MemberUpdate, MemberPage. */
export function memberComponents(format: PageFormat) {
  return [MemberResource, MemberCreateBody, MemberUpdateBody, memberPage(format)]
}
