import type { Kysely, SelectQueryBuilder } from 'kysely'
import type { RepositoryDatabase } from '../../../infra/db/create-database.js'
import type { EngineTraits } from '../../../infra/db/engine/traits.js'
import type { Precompiled } from '../../../infra/db/precompiled.js'
import type { DatabaseSchema } from '../../../infra/db/schema.js'
import { isStorableText } from '../../../infra/db/storable-text.js'
import { storedInstant } from '../../../infra/db/stored-instant.js'
import { UniqueViolationError } from '../../../infra/db/translate-errors.js'
import type {
  Member,
  MemberPage,
  MemberProfile,
  MemberSearch,
  PageRequest,
} from '../domain/model.js'
import type { InsertOutcome, MemberRepository } from '../domain/repository.js'
import type { MemberSearchQueries } from './member-search.js'

type MemberQuery = SelectQueryBuilder<
  DatabaseSchema & { m: DatabaseSchema['member']; c: DatabaseSchema['member_credential'] },
  'm' | 'c',
  object
>
type Row = Awaited<ReturnType<typeof selectMembers>>[number]

function withMemberColumns(query: MemberQuery, { instant }: EngineTraits) {
  return query.select([
    'm.member_id',
    'm.first_name',
    'm.last_name',
    'm.gender_code',
    'm.date_of_birth',
    'm.email_address',
    'm.telephone_number',
    'm.zip_code',
    'm.address',
    instant('m.created_at').as('created_at'),
    instant('m.last_modified_at').as('last_modified_at'),
    'm.version',
    'c.sign_id',
    'c.password_hash',
    instant('c.password_last_changed_at').as('password_last_changed_at'),
    instant('c.last_modified_at').as('credential_last_modified_at'),
  ])
}

function selectMembers(query: MemberQuery, engine: EngineTraits) {
  return withMemberColumns(query, engine).execute()
}

function toMember(row: Row): Member {
  return {
    memberId: row.member_id,
    firstName: row.first_name,
    lastName: row.last_name,
    genderCode: row.gender_code,
    dateOfBirth: row.date_of_birth,
    emailAddress: row.email_address,
    telephoneNumber: row.telephone_number,
    zipCode: row.zip_code,
    address: row.address,
    credential: {
      signId: row.sign_id,
      passwordHash: row.password_hash,
      passwordLastChangedAt: storedInstant(row.password_last_changed_at),
      lastModifiedAt: storedInstant(row.credential_last_modified_at),
    },
    createdAt: storedInstant(row.created_at),
    lastModifiedAt: storedInstant(row.last_modified_at),
    version: Number(row.version),
  }
}

/** The columns of the fields a client writes (insert) and overwrites (update). */
function profileColumns(profile: MemberProfile) {
  return {
    first_name: profile.firstName,
    last_name: profile.lastName,
    gender_code: profile.genderCode,
    date_of_birth: profile.dateOfBirth,
    email_address: profile.emailAddress,
    telephone_number: profile.telephoneNumber,
    zip_code: profile.zipCode,
    address: profile.address,
  }
}

/** The rows of a new member: its own and its credential's. */
function newRows(member: Member) {
  return {
    member: {
      member_id: member.memberId,
      ...profileColumns(member),
      created_at: member.createdAt,
      last_modified_at: member.lastModifiedAt,
      version: member.version,
    },
    credential: {
      member_id: member.memberId,
      sign_id: member.credential.signId,
      password_hash: member.credential.passwordHash,
      password_last_changed_at: member.credential.passwordLastChangedAt,
      last_modified_at: member.credential.lastModifiedAt,
    },
  }
}

/** Any member: the stand-in values the insert of both rows is compiled with. */
const STAND_IN: Member = {
  memberId: '',
  firstName: '',
  lastName: '',
  genderCode: '',
  dateOfBirth: '',
  emailAddress: '',
  telephoneNumber: null,
  zipCode: null,
  address: null,
  credential: {
    signId: '',
    passwordHash: '',
    passwordLastChangedAt: '',
    lastModifiedAt: '',
  },
  createdAt: '',
  lastModifiedAt: '',
  version: 1,
}

/**
 * The values of both rows in the order of the insert's stand-ins: newRows builds every
 * member's rows with the same columns in the same order, none left out.
 */
function insertParameters(member: Member): unknown[] {
  const rows = newRows(member)
  return [...Object.values(rows.member), ...Object.values(rows.credential)]
}

export interface MemberRepositoryOptions {
  /** The search's plans (member-search.ts), for the database's engine. */
  readonly searches: MemberSearchQueries
}

export class KyselyMemberRepository implements MemberRepository {
  readonly #byId: Precompiled<Row, [memberId: string]>
  /** Both rows in one statement, where the engine allows it (a named statement on PostgreSQL). */
  readonly #insertBoth: Precompiled<unknown> | undefined
  readonly #database: RepositoryDatabase
  readonly #searches: MemberSearchQueries
  private readonly db: Kysely<DatabaseSchema>

  constructor(
    /**
     * Its main connections, and the long reads' where searches read (create-database.ts):
     * off the event loop and within READ_TIMEOUT, maybe a replica a little behind.
     */
    database: RepositoryDatabase,
    options: MemberRepositoryOptions,
    /** Given on a transaction: the repository whose compiled statements `database.db` runs. */
    base?: KyselyMemberRepository,
  ) {
    this.#database = database
    this.db = database.db
    this.#searches = options.searches
    this.#byId = base
      ? base.#byId.on(this.db)
      : database.precompile(
          withMemberColumns(this.members().where('m.member_id', '=', ''), database.engine),
          { atMostOne: true },
        )
    this.#insertBoth = base
      ? base.#insertBoth?.on(this.db)
      : database.engine.insertsInWith
        ? database.precompile(this.insertBothQuery(newRows(STAND_IN)))
        : undefined
  }

  /** This repository on a transaction, cheaply: nothing is built or compiled again. */
  inTransaction(trx: Kysely<DatabaseSchema>): KyselyMemberRepository {
    const database = { ...this.#database, db: trx, reads: trx }
    return new KyselyMemberRepository(database, { searches: this.#searches }, this)
  }

  private members(db = this.db): MemberQuery {
    return db
      .selectFrom('member as m')
      .innerJoin('member_credential as c', 'c.member_id', 'm.member_id') as MemberQuery
  }

  async findById(memberId: string): Promise<Member | undefined> {
    if (!isStorableText(memberId)) return undefined
    const [row] = await this.#byId(memberId)
    return row && toMember(row)
  }

  async insert(member: Member): Promise<InsertOutcome> {
    try {
      await this.#insertRows(member)
      return 'inserted'
    } catch (error) {
      if (error instanceof UniqueViolationError) {
        if (error.columns.includes('sign_id')) return 'sign-id-taken'
        if (error.columns.includes('member_id')) return 'member-id-taken'
      }
      throw error
    }
  }

  /** One statement: the credential's foreign key is checked at its end, member inserted. */
  private insertBothQuery(rows: ReturnType<typeof newRows>) {
    return this.db
      .with('m', (db) => db.insertInto('member').values(rows.member).returning('member_id'))
      .insertInto('member_credential')
      .values(rows.credential)
  }

  /** The member's row and its credential's, both or neither. */
  async #insertRows(member: Member): Promise<void> {
    if (this.#insertBoth) {
      await this.#insertBoth(...insertParameters(member))
      return
    }
    const rows = newRows(member)
    const write = async (trx: Kysely<DatabaseSchema>) => {
      await trx.insertInto('member').values(rows.member).execute()
      await trx.insertInto('member_credential').values(rows.credential).execute()
    }
    // In a unit of work its transaction holds both rows (Kysely does not nest transactions).
    if (this.db.isTransaction) await write(this.db)
    else await this.db.transaction().execute(write)
  }

  async update(member: Member, expectedVersion: number): Promise<boolean> {
    if (!isStorableText(member.memberId)) return false
    const result = await this.db
      .updateTable('member')
      .set({
        ...profileColumns(member),
        last_modified_at: member.lastModifiedAt,
        version: member.version,
      })
      .where('member_id', '=', member.memberId)
      .where('version', '=', expectedVersion)
      .executeTakeFirst()
    return result.numUpdatedRows > 0n
  }

  async delete(memberId: string, expectedVersion?: number): Promise<boolean> {
    if (!isStorableText(memberId)) return false
    // The credential goes with it (ON DELETE CASCADE).
    let query = this.db.deleteFrom('member').where('member_id', '=', memberId)
    if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion)
    const result = await query.executeTakeFirst()
    return result.numDeletedRows > 0n
  }

  /** Count and page in one read-only snapshot (decisions §9), then the page's members. */
  search(search: MemberSearch, page: PageRequest): Promise<MemberPage> {
    return this.#inSnapshot(async (trx) => {
      const { ids, total } = await this.#searches.page(trx, search, page)
      return { members: await this.#byIds(trx, ids), total }
    })
  }

  searchAll(search: MemberSearch, limit: number): Promise<Member[] | undefined> {
    return this.#inSnapshot(async (trx) => {
      const ids = await this.#searches.all(trx, search, limit)
      return ids && (await this.#byIds(trx, ids))
    })
  }

  #inSnapshot<T>(read: (trx: Kysely<DatabaseSchema>) => Promise<T>): Promise<T> {
    return this.#database.reads
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(read)
  }

  /** The members of the given ids, in that order. */
  async #byIds(db: Kysely<DatabaseSchema>, ids: readonly string[]): Promise<Member[]> {
    if (ids.length === 0) return []
    const rows = await selectMembers(
      this.members(db).where('m.member_id', 'in', ids),
      this.#database.engine,
    )
    const byId = new Map(rows.map((row) => [row.member_id, toMember(row)]))
    return ids.map((id) => byId.get(id) as Member)
  }
}
