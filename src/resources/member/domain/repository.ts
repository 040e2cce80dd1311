import type { Member, MemberPage, MemberSearch, PageRequest } from './model.js'

/** What an insert ran into: a taken member id is retried, a taken sign id is the client's conflict. */
export type InsertOutcome = 'inserted' | 'member-id-taken' | 'sign-id-taken'

export interface MemberRepository {
  findById(memberId: string): Promise<Member | undefined>
  /**
   * Inserts the member and its credential together, or neither. In a unit of work an
   * outcome other than 'inserted' leaves its transaction fit only for a rollback (on
   * PostgreSQL a unique violation aborts it): a retry needs a new unit of work.
   */
  insert(member: Member): Promise<InsertOutcome>
  /** Writes the profile, lastModifiedAt and version only while the stored version is `expectedVersion`. */
  update(member: Member, expectedVersion: number): Promise<boolean>
  /** Deletes the member and its credential, only at `expectedVersion` if one is given. */
  delete(memberId: string, expectedVersion?: number): Promise<boolean>
  /**
   * One page of matches, in the search's order, with the number of all matches, both
   * read at one moment (decisions §9: a page never holds more members than the total).
   */
  search(search: MemberSearch, page: PageRequest): Promise<MemberPage>
  /** Every match in the search's order; undefined when there are more than `limit`. */
  searchAll(search: MemberSearch, limit: number): Promise<Member[] | undefined>
}
