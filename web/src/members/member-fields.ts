import {
  type Member,
  type MemberCreate,
  type MemberUpdate,
  memberUpdateFrom,
} from '../../../clients/typescript/src/client.js'

/** The fields of the member form, in the order of the contract's field table. */
export const PROFILE_FIELDS = [
  'firstName',
  'lastName',
  'genderCode',
  'dateOfBirth',
  'emailAddress',
  'telephoneNumber',
  'zipCode',
  'address',
] as const
export const CREDENTIAL_FIELDS = ['signId', 'password'] as const

export type ProfileField = (typeof PROFILE_FIELDS)[number]
export type CredentialField = (typeof CREDENTIAL_FIELDS)[number]
export type FieldName = ProfileField | CredentialField
/** What the reader typed, field by field. */
export type FormValues = Readonly<Record<FieldName, string>>

/** Left empty, these are sent as null (no value), which the service accepts. */
export const OPTIONAL_FIELDS: ReadonlySet<FieldName> = new Set([
  'telephoneNumber',
  'zipCode',
  'address',
  'signId',
])

export const EMPTY_FORM: FormValues = {
  firstName: '',
  lastName: '',
  genderCode: '',
  dateOfBirth: '',
  emailAddress: '',
  telephoneNumber: '',
  zipCode: '',
  address: '',
  signId: '',
  password: '',
}

export function formValuesOf(member: Member): FormValues {
  return {
    ...EMPTY_FORM,
    ...Object.fromEntries(PROFILE_FIELDS.map((field) => [field, member[field] ?? ''])),
  }
}

/**
 * An input as sent: an empty optional field or date is null; anything else exactly as
 * typed, since the service is the one that judges it.
 */
function sent(values: FormValues, field: FieldName): string | null {
  const value = values[field]
  return value === '' && (OPTIONAL_FIELDS.has(field) || field === 'dateOfBirth') ? null : value
}

const profileOf = (values: FormValues) =>
  Object.fromEntries(PROFILE_FIELDS.map((field) => [field, sent(values, field)]))

/*
 * The typed client's request types describe a valid request; a form sends what the
 * reader typed, valid or not, and shows the service's answer next to each field. So the
 * two bodies below are typed as requests without being checked as such.
 */

export function createBody(values: FormValues): MemberCreate {
  return {
    ...profileOf(values),
    credential: { signId: sent(values, 'signId'), password: values.password },
  } as MemberCreate
}

export function updateBody(member: Member, values: FormValues): MemberUpdate {
  return memberUpdateFrom(member, profileOf(values) as Partial<MemberUpdate>)
}

/** The form field an ApiError target names (`credential.password` is `password`). */
export function fieldOfTarget(target: string): FieldName | undefined {
  const field = target.replace(/^credential\./, '')
  return (PROFILE_FIELDS as readonly string[]).includes(field) ||
    (CREDENTIAL_FIELDS as readonly string[]).includes(field)
    ? (field as FieldName)
    : undefined
}
