import type { ExpressionBuilder, Kysely, SelectQueryBuilder } from 'kysely'
import { formatInstant } from '../../domain/common/instant.js'
import type {
  Member,
  MemberPage,
  MemberProfile,
  MemberSearch,
  PageRequest,
  SortableProperty,
} from '../../domain/member/model.js'
import type { InsertOutcome, MemberRepository } from '../../domain/member/repository.js'
import { toDate } from '../db/dialect.js'
import { type Precompiled, precompiled } from '../db/precompiled.js'
import type { DatabaseSchema } from '../db/schema.js'
import { isStorableText } from '../db/storable-text.js'
import { UniqueViolationError } from '../db/translate-errors.js'
import { prefixRange } from './prefix-range.js'

type MemberQuery = SelectQueryBuilder<
  DatabaseSchema & { m: DatabaseSchema['member']; c: DatabaseSchema['member_credential'] },
  'm' | 'c',
  object
>
type Row = Awaited<ReturnType<typeof selectMembers>>[number]

const SORT_COLUMNS: Readonly<Record<SortableProperty, `m.${keyof DatabaseSchema['member']}`>> = {
  memberId: 'm.member_id',
  firstName: 'm.first_name',
  lastName: 'm.last_name',
  dateOfBirth: 'm.date_of_birth',
  emailAddress: 'm.email_address',
  createdAt: 'm.created_at',
  lastModifiedAt: 'm.last_modified_at',
}

function withMemberColumns(query: MemberQuery) {
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
    'm.created_at',
    'm.last_modified_at',
    'm.version',
    'c.sign_id',
    'c.password_hash',
    'c.password_last_changed_at',
    'c.last_modified_at as credential_last_modified_at',
  ])
}

function selectMembers(query: MemberQuery) {
  return withMemberColumns(query).execute()
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
      passwordLastChangedAt: toDate(row.password_last_changed_at),
      lastModifiedAt: toDate(row.credential_last_modified_at),
    },
    createdAt: toDate(row.created_at),
    lastModifiedAt: toDate(row.last_modified_at),
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

/** First or last name in the prefix's range (see prefix-range.ts). */
function nameStartsWith(prefix: string) {
  const { from, below } = prefixRange(prefix)
  return (eb: ExpressionBuilder<DatabaseSchema & { m: DatabaseSchema['member'] }, 'm'>) => {
    const inRange = (column: 'm.first_name' | 'm.last_name') =>
      below === undefined
        ? eb(column, '>=', from)
        : eb.and([eb(column, '>=', from), eb(column, '<', below)])
    return eb.or([inRange('m.first_name'), inRange('m.last_name')])
  }
}

/** The search's orders, then memberId, so equal keys never make pages overlap. */
function inSearchOrder(query: MemberQuery, search: MemberSearch): MemberQuery {
  let ordered = query
  for (const order of search.sort) {
    const direction = order.direction === 'ASC' ? 'asc' : 'desc'
    ordered = ordered.orderBy(SORT_COLUMNS[order.property], direction)
  }
  if (!search.sort.some((order) => order.property === 'memberId')) {
    ordered = ordered.orderBy('m.member_id', 'asc')
  }
  return ordered
}

export class KyselyMemberRepository implements MemberRepository {
  readonly #byId: Precompiled<Row, [memberId: string]>

  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    /** Where searches read: a replica may serve them (create-database.ts), a little behind. */
    private readonly reads: Kysely<DatabaseSchema> = db,
    /** Given on a transaction: the repository whose compiled statements `db` runs. */
    base?: KyselyMemberRepository,
  ) {
    this.#byId = base
      ? base.#byId.on(db)
      : precompiled(db, withMemberColumns(this.members().where('m.member_id', '=', '')))
  }

  /** This repository on a transaction, cheaply: nothing is built or compiled again. */
  inTransaction(trx: Kysely<DatabaseSchema>): KyselyMemberRepository {
    return new KyselyMemberRepository(trx, trx, this)
  }

  private members(db = this.db): MemberQuery {
    return db
      .selectFrom('member as m')
      .innerJoin('member_credential as c', 'c.member_id', 'm.member_id') as MemberQuery
  }

  /**
   * One slice of the matches in the search's order. The slice's ids are chosen first,
   * from the member table alone (the name indexes hold the id), and only those rows are
   * joined with their credentials: a broad prefix sorts ids, not whole joined rows.
   */
  private async slice(search: MemberSearch, limit: number, offset: number): Promise<Member[]> {
    const matchingIds = this.reads
      .selectFrom('member as m')
      .where(nameStartsWith(search.namePrefix))
      .select('m.member_id') as unknown as MemberQuery
    const sliceIds = inSearchOrder(matchingIds, search).limit(limit).offset(offset)
    const members = this.members(this.reads).where('m.member_id', 'in', sliceIds as never)
    const rows = await selectMembers(inSearchOrder(members, search))
    return rows.map(toMember)
  }

  async findById(memberId: string): Promise<Member | undefined> {
    if (!isStorableText(memberId)) return undefined
    const [row] = await this.#byId(memberId)
    return row && toMember(row)
  }

  async insert(member: Member): Promise<InsertOutcome> {
    const write = async (trx: Kysely<DatabaseSchema>) => {
      await trx
        .insertInto('member')
        .values({
          member_id: member.memberId,
          ...profileColumns(member),
          created_at: formatInstant(member.createdAt),
          last_modified_at: formatInstant(member.lastModifiedAt),
          version: member.version,
        })
        .execute()
      await trx
        .insertInto('member_credential')
        .values({
          member_id: member.memberId,
          sign_id: member.credential.signId,
          password_hash: member.credential.passwordHash,
          password_last_changed_at: formatInstant(member.credential.passwordLastChangedAt),
          last_modified_at: formatInstant(member.credential.lastModifiedAt),
        })
        .execute()
    }
    try {
      // In a unit of work its transaction holds both rows (Kysely does not nest transactions).
      if (this.db.isTransaction) await write(this.db)
      else await this.db.transaction().execute(write)
      return 'inserted'
    } catch (error) {
      if (error instanceof UniqueViolationError) {
        if (error.columns.includes('sign_id')) return 'sign-id-taken'
        if (error.columns.includes('member_id')) return 'member-id-taken'
      }
      throw error
    }
  }

  async update(member: Member, expectedVersion: number): Promise<boolean> {
    if (!isStorableText(member.memberId)) return false
    const result = await this.db
      .updateTable('member')
      .set({
        ...profileColumns(member),
        last_modified_at: formatInstant(member.lastModifiedAt),
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

  async search(search: MemberSearch, page: PageRequest): Promise<MemberPage> {
    const { total } = await this.reads
      .selectFrom('member as m')
      .where(nameStartsWith(search.namePrefix))
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('total'))
      .executeTakeFirstOrThrow()
    const offset = page.page * page.size
    // A page past the end needs no second query (and no huge OFFSET).
    if (offset >= Number(total)) return { members: [], total: Number(total) }
    return { members: await this.slice(search, page.size, offset), total: Number(total) }
  }

  searchAll(search: MemberSearch, limit: number): Promise<Member[]> {
    return this.slice(search, limit, 0)
  }
}
