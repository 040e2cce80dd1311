import type { WorkAdmission } from '../../../domain/common/admission.js'
import {
  BusinessRuleError,
  OptimisticLockError,
  ResourceNotFoundError,
  ResultLimitExceededError,
} from '../../../domain/common/errors.js'
import { instantOf } from '../../../domain/common/instant.js'
import type { Alongside, UnitOfWork } from '../../../domain/common/unit-of-work.js'
import {
  type VersionCondition,
  writeWhilePreconditionHolds,
} from '../../../domain/common/version.js'
import {
  MEMBER,
  type Member,
  type MemberPage,
  type MemberProfile,
  type MemberRule,
  type MemberSearch,
  type NewMember,
  type PageRequest,
} from './model.js'
import type { InsertOutcome, MemberRepository } from './repository.js'

/** The most members one unpaged search returns; a broader search is refused. */
export const UNPAGED_LIMIT = 1000
/** Random ids collide about once in 10^17 draws; a few retries make it never surface. */
const ID_ATTEMPTS = 5

/** What a member write needs of a unit of work: its own repository in the transaction. */
export interface MemberScope {
  readonly members: MemberRepository
}

export interface MemberServiceDeps<Scope extends MemberScope> {
  readonly repository: MemberRepository
  /** Transactions for a create with more writes alongside it. */
  readonly unitOfWork: UnitOfWork<Scope>
  readonly now: () => Date
  readonly newId: () => string
  readonly hashPassword: (password: string) => Promise<string>
  /** Searches and password hashes run admitted, each kind within its own limits (decisions §9). */
  readonly searches: WorkAdmission
  readonly hashing: WorkAdmission
}

/** Exactly the profile fields, whatever else the source object carries. */
function profileOf(source: MemberProfile): MemberProfile {
  return {
    firstName: source.firstName,
    lastName: source.lastName,
    genderCode: source.genderCode,
    dateOfBirth: source.dateOfBirth,
    emailAddress: source.emailAddress,
    telephoneNumber: source.telephoneNumber,
    zipCode: source.zipCode,
    address: source.address,
  }
}

/** Ends a unit of work whose insert did not happen: rolled back, the outcome handed on. */
class NotInserted extends Error {
  constructor(readonly outcome: Exclude<InsertOutcome, 'inserted'>) {
    super(outcome)
  }
}

export class MemberService<Scope extends MemberScope = MemberScope> {
  readonly #repository: MemberRepository
  readonly #unitOfWork: UnitOfWork<Scope>
  readonly #now: () => Date
  readonly #newId: () => string
  readonly #hashPassword: (password: string) => Promise<string>
  readonly #searches: WorkAdmission
  readonly #hashing: WorkAdmission

  constructor(deps: MemberServiceDeps<Scope>) {
    this.#repository = deps.repository
    this.#unitOfWork = deps.unitOfWork
    this.#now = deps.now
    this.#newId = deps.newId
    this.#hashPassword = deps.hashPassword
    this.#searches = deps.searches
    this.#hashing = deps.hashing
  }

  async get(memberId: string): Promise<Member> {
    const member = await this.#repository.findById(memberId)
    if (!member) throw new ResourceNotFoundError(MEMBER, memberId)
    return member
  }

  /** `client`: who asks, the key expensive work is shared fairly by (WorkOptions). */
  search(search: MemberSearch, page: PageRequest, client?: string): Promise<MemberPage> {
    return this.#searches.run(() => this.#repository.search(search, page), { client })
  }

  /** Every match, unless there are more than UNPAGED_LIMIT. */
  async searchAll(search: MemberSearch, client?: string): Promise<Member[]> {
    const members = await this.#searches.run(
      () => this.#repository.searchAll(search, UNPAGED_LIMIT),
      { client },
    )
    if (members === undefined) throw new ResultLimitExceededError(UNPAGED_LIMIT)
    return members
  }

  /**
   * The service assigns the id and every time stamp; an empty sign id becomes the
   * e-mail address in lower case; the password is kept only as its hash. `alongside`
   * runs in the insert's transaction (both are stored or neither); without it the
   * insert is the repository's own. The password is hashed before any transaction
   * begins: held through an argon2id hash, SQLite's one connection would stall
   * every other request.
   */
  async create(
    input: NewMember,
    alongside?: Alongside<Member, Scope>,
    client?: string,
  ): Promise<Member> {
    const signId = input.credential.signId || input.emailAddress.toLowerCase()
    const passwordHash = await this.#hashing.run(
      () => this.#hashPassword(input.credential.password),
      { client },
    )
    const now = instantOf(this.#now())
    for (let attempt = 0; attempt < ID_ATTEMPTS; attempt += 1) {
      const member: Member = {
        ...profileOf(input),
        memberId: this.#newId(),
        credential: { signId, passwordHash, passwordLastChangedAt: now, lastModifiedAt: now },
        createdAt: now,
        lastModifiedAt: now,
        version: 1,
      }
      const outcome = alongside
        ? await this.#insertAlongside(member, alongside)
        : await this.#repository.insert(member)
      if (outcome === 'inserted') return member
      if (outcome === 'sign-id-taken')
        throw new BusinessRuleError('sign-id-in-use' satisfies MemberRule, signId)
    }
    throw new Error(`no free member id after ${ID_ATTEMPTS} attempts`)
  }

  /**
   * One unit of work per attempt: on PostgreSQL a taken id aborts the transaction, so
   * an attempt that did not insert is rolled back and the next one starts afresh.
   */
  async #insertAlongside(
    member: Member,
    alongside: Alongside<Member, Scope>,
  ): Promise<InsertOutcome> {
    try {
      return await this.#unitOfWork.run(async (scope) => {
        const outcome = await scope.members.insert(member)
        if (outcome !== 'inserted') throw new NotInserted(outcome)
        await alongside(member, scope)
        return outcome
      })
    } catch (error) {
      if (error instanceof NotInserted) return error.outcome
      throw error
    }
  }

  /** Overwrites the profile; the id, credential and creation time stay. */
  async update(
    memberId: string,
    profile: MemberProfile,
    condition?: VersionCondition,
  ): Promise<Member> {
    const updatedFrom = (current: Member): Member => ({
      ...current,
      ...profileOf(profile),
      lastModifiedAt: instantOf(this.#now()),
      version: current.version + 1,
    })
    if (condition) {
      return writeWhilePreconditionHolds(
        condition,
        () => this.get(memberId),
        (member) => member.version,
        async (current) => {
          const updated = updatedFrom(current)
          return (await this.#repository.update(updated, current.version)) ? updated : undefined
        },
      )
    }
    const current = await this.get(memberId)
    const updated = updatedFrom(current)
    if (await this.#repository.update(updated, current.version)) return updated
    // Another request changed or deleted the member after our read.
    await this.get(memberId)
    throw new OptimisticLockError()
  }

  async delete(memberId: string, condition?: VersionCondition): Promise<void> {
    if (!condition) {
      if (!(await this.#repository.delete(memberId))) {
        throw new ResourceNotFoundError(MEMBER, memberId)
      }
      return
    }
    await writeWhilePreconditionHolds(
      condition,
      () => this.get(memberId),
      (member) => member.version,
      async (current) => (await this.#repository.delete(memberId, current.version)) || undefined,
    )
  }
}
