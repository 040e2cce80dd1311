/** A Member as the API answers it, and helpers the member-related suites share. */
export interface MemberBody {
  memberId: string
  firstName: string
  lastName: string
  genderCode: string
  dateOfBirth: string
  emailAddress: string
  telephoneNumber: string | null
  zipCode: string | null
  address: string | null
  credential: { signId: string; passwordLastChangedAt: string; lastModifiedAt: string }
  createdAt: string
  lastModifiedAt: string
}

/** The Member fields in the order of the spec's table, as every response lists them. */
export const MEMBER_KEYS = [
  'memberId',
  'firstName',
  'lastName',
  'genderCode',
  'dateOfBirth',
  'emailAddress',
  'telephoneNumber',
  'zipCode',
  'address',
  'credential',
  'createdAt',
  'lastModifiedAt',
]

/** A PUT body carrying the member's own profile, with `changes` on top. */
export function updateBody(
  member: MemberBody,
  changes: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    memberId: member.memberId,
    firstName: member.firstName,
    lastName: member.lastName,
    genderCode: member.genderCode,
    dateOfBirth: member.dateOfBirth,
    emailAddress: member.emailAddress,
    telephoneNumber: member.telephoneNumber,
    zipCode: member.zipCode,
    address: member.address,
    ...changes,
  }
}
