import type { Instant } from '../../../domain/common/instant.js'

/** The resource's name, as its domain errors say it. */
export const MEMBER = 'member'

/** The business rules of members: two members cannot share a sign id. */
export type MemberRule = 'sign-id-in-use'

/** The fields a client writes on create and overwrites on update. */
export interface MemberProfile {
  readonly firstName: string
  readonly lastName: string
  readonly genderCode: string
  /** yyyy-MM-dd */
  readonly dateOfBirth: string
  readonly emailAddress: string
  readonly telephoneNumber: string | null
  readonly zipCode: string | null
  readonly address: string | null
}

export interface Credential {
  readonly signId: string
  /** PHC string (argon2id); the plain password is never kept. */
  readonly passwordHash: string
  readonly passwordLastChangedAt: Instant
  readonly lastModifiedAt: Instant
}

export interface Member extends MemberProfile {
  readonly memberId: string
  readonly credential: Credential
  readonly createdAt: Instant
  readonly lastModifiedAt: Instant
  /** Optimistic-locking version: 1 on create, +1 on every update. */
  readonly version: number
}

export interface NewMember extends MemberProfile {
  readonly credential: { readonly signId: string | null; readonly password: string }
}

/** Properties a search can be ordered by. */
export const SORTABLE_PROPERTIES = [
  'memberId',
  'firstName',
  'lastName',
  'dateOfBirth',
  'emailAddress',
  'createdAt',
  'lastModifiedAt',
] as const
export type SortableProperty = (typeof SORTABLE_PROPERTIES)[number]

export interface SortOrder {
  readonly property: SortableProperty
  readonly direction: 'ASC' | 'DESC'
}

export interface MemberSearch {
  /** Matches members whose first or last name starts with it, case-sensitively. */
  readonly namePrefix: string
  /** Requested orders; ties are always broken by memberId. */
  readonly sort: readonly SortOrder[]
}

export interface PageRequest {
  /** Zero-based. */
  readonly page: number
  readonly size: number
}

export interface MemberPage {
  readonly members: Member[]
  readonly total: number
}
