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

/** A valid POST /members body for the named member, with a unique e-mail address of the caller's. */
export function memberCreateBody(firstName: string, lastName: string, emailAddress: string) {
  return {
    firstName,
    lastName,
    genderCode: '1',
    dateOfBirth: '1990-01-01',
    emailAddress,
    credential: { password: 'password-123' },
  }
}

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

/**
 * Passwords that suites send to the service, which no response and no log line may ever
 * contain. Global setup scans every log line the run captured (test/helpers/log-scan.ts)
 * for these and for `$argon2`. A suite that sends another distinctive password should
 * list it here (short, common words such as 'short' are left out: they occur in logs
 * innocently).
 */
export const TEST_PASSWORDS: readonly string[] = [
  // test/api/security.test.ts
  'Canary-Created-7f3Q',
  'Canary-Second-9xKw',
  'Canary-Invalid-2bRt',
  'Canary-Updated-4mZp',
  'Canary-Replayed-6hY',
  'Canary-Broken-8vNc',
  // the other suites
  'Pa55word-Secret',
  'NewPassw0rd',
  'Retry-Pa55word',
  'Parallel-Pa55',
  'Racing-Pa55',
  'Crash-Pa55word',
  'fuzz-password',
  // test/helpers/request-generators.ts (boundary lengths)
  'fuzz-pw',
  'fuzz-pwd',
  '😀'.repeat(8),
  'correct-horse',
  'built-password',
  'password-123',
]

/** Passwords built at run time (member.test.ts: `Zq9!${RUN}-Secret`). */
export const TEST_PASSWORD_PATTERNS: readonly RegExp[] = [/Zq9!\w+-Secret/]
