import { randomBytes } from 'node:crypto'
import { expect } from 'vitest'
import type { Member } from '../../src/resources/member/domain/model.js'
import type { HttpOptions, HttpResponse } from './http.js'
import type { SuiteServer } from './server.js'

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
  // test/helpers/security-probes.ts (test/security/)
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
  // test/helpers/request-bodies.ts (boundary lengths)
  'fuzz-pw',
  'fuzz-pwd',
  '😀'.repeat(8),
  'correct-horse',
  'built-password',
  'password-123',
]

/** Passwords built at run time (test/members/password.test.ts: `Zq9!${RUN}-Secret`). */
export const TEST_PASSWORD_PATTERNS: readonly RegExp[] = [/Zq9!\w+-Secret/]

// ---- the Member resource's shapes (test/members/) -------------------------------------

export const ISO_MILLIS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
export const MEMBER_ID = /^[0-9A-Za-z]{10}$/
export const PASSWORD = 'Pa55word-Secret'
/** A well-formed member id that no test creates. */
export const UNKNOWN_MEMBER_ID = 'ZZZZZZZZZZ'

export const CREDENTIAL_KEYS = ['signId', 'passwordLastChangedAt', 'lastModifiedAt']
export const PAGE_KEYS = [
  'content',
  'sort',
  'first',
  'last',
  'totalPages',
  'totalElements',
  'size',
  'number',
  'numberOfElements',
]
export const SORT_KEYS = ['direction', 'property', 'ignoreCase', 'nullHandling', 'ascending']
/** The sort parameter's pattern, as the Pattern detail names it. */
export const SORT_PATTERN =
  '^(memberId|firstName|lastName|dateOfBirth|emailAddress|createdAt|lastModifiedAt)' +
  '(,([aA][sS][cC]|[dD][eE][sS][cC]))?$'

export interface PageBody {
  content: MemberBody[]
  sort: unknown[] | null
  first: boolean
  last: boolean
  totalPages: number
  totalElements: number
  size: number
  number: number
  numberOfElements: number
}

export type Fields = Record<string, unknown>

// ---- request bodies -------------------------------------------------------------------

/** This run's mark, in e-mail addresses and names, so that runs never collide. */
export const RUN = randomBytes(3).toString('hex')
let sequence = 0

/** An e-mail address no other request of this run uses. */
export function uniqueEmail(tag = 'member'): string {
  sequence += 1
  return `${tag}${sequence}.${RUN}@example.com`
}

/** A POST body that passes every Create rule, with `overrides` and `credential` changes on top. */
export function validMember(overrides: Fields = {}, credential: Fields = {}): Fields {
  return {
    firstName: 'Taro',
    lastName: 'Yamada',
    genderCode: '1',
    dateOfBirth: '1990-04-01',
    emailAddress: uniqueEmail(),
    telephoneNumber: '090-1234-5678',
    zipCode: '100-0001',
    address: 'Chiyoda, Tokyo',
    credential: { password: PASSWORD, ...credential },
    ...overrides,
  }
}

/** yyyy-MM-dd of today (UTC) moved by `days`. */
export function utcDay(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)
}

/** Code-point order, as the service sorts (not the locale's). */
export const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
export const byMemberId = (a: MemberBody, b: MemberBody) => byCodePoint(a.memberId, b.memberId)

// ---- per-suite client -----------------------------------------------------------------

/** Requests under /api/v1 and the member operations every suite needs. */
export function memberClient(suite: SuiteServer) {
  const call = (method: string, path: string, options?: HttpOptions) =>
    suite.server.request(method, `/api/v1${path}`, options)

  async function createMember(overrides: Fields = {}, credential: Fields = {}) {
    const response = await call('POST', '/members', { body: validMember(overrides, credential) })
    expect(response.status, response.text).toBe(201)
    return response.body as MemberBody
  }

  async function search(query: string): Promise<HttpResponse> {
    return call('GET', `/members?${query}`)
  }

  async function searchPage(query: string): Promise<PageBody> {
    const response = await search(query)
    expect(response.status, response.text).toBe(200)
    return response.body as PageBody
  }

  return { call, createMember, search, searchPage }
}

/** A member as the domain hands it to a repository, the `sequence`th of a suite, unique by it. */
export function storableMember(sequence: number, overrides: Partial<Member> = {}): Member {
  const memberId = `M${String(sequence).padStart(9, '0')}`
  const at = '2026-01-01T00:00:00.000Z'
  return {
    memberId,
    firstName: `First${sequence}`,
    lastName: `Last${sequence}`,
    genderCode: '1',
    dateOfBirth: '1990-02-28',
    emailAddress: `m${sequence}@example.com`,
    telephoneNumber: null,
    zipCode: '',
    address: 'Tokyo',
    credential: {
      signId: `m${sequence}@example.com`,
      passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
      passwordLastChangedAt: at,
      lastModifiedAt: at,
    },
    createdAt: at,
    lastModifiedAt: at,
    version: 1,
    ...overrides,
  }
}
