import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely'
import type { EngineTraits } from '../../../infra/db/engine/traits.js'
import type { DatabaseSchema } from '../../../infra/db/schema.js'
import type { MemberSearch, PageRequest } from '../domain/model.js'
import { inOrder, type OrderKey, orderOf, type Slice, sliceOf } from './member-search-order.js'
import { type PrefixRange, prefixRange } from './prefix-range.js'

/*
 * How one page of a member search is read, at any size of table and any breadth of
 * prefix, in one read transaction (a snapshot: the total and the page agree).
 *
 * 1. Count: the matches of the first name, plus those of the last name whose first name
 *    does not match; two range counts over the name indexes, without reading the table.
 * 2. Which end: a page in the back half of the matches is read as the front of the
 *    reversed order (every direction flipped, the tie-break too) and turned around, so
 *    the last page costs what the first does, and no page lies deeper than the middle.
 * 3. Narrow searches (at most `gatherLimit` matches): gather every match through the
 *    name ranges and sort them. Sorting costs per match on either database: cheap for a
 *    few thousand, far too much for hundreds of thousands.
 * 4. Broad searches: walk the index of the first sort key (0004-member-search-indexes.ts)
 *    in order, keeping the members whose names match; an index entry costs far less than
 *    a sorted match, and a page is at most half an index away.
 *    - One sort key (ties broken by member_id in the same direction): the walk is the
 *      page.
 *    - Otherwise the first key's groups of equal values need the other keys: the walk
 *      finds the group and the place in it where the page starts (the key's value at
 *      the page's first position, and how many of that group come before it), and only
 *      that group onwards is sorted; groups before it are skipped, never sorted.
 *    - Sorted by a name, the members whose that name is in range are one block of its
 *      index: a page inside the block is read from the block alone, from its nearer end.
 */

/** At most this many matches are gathered and sorted; more are walked. */
export const GATHER_LIMIT = 10_000

type Name = 'first_name' | 'last_name'

/** The matches of each name: first names in range, and last names in range whose first name is not. */
interface Matches {
  readonly firsts: number
  readonly lasts: number
}

/** The names a walk's filter asks for: each that matches anywhere. */
function namesMatching({ firsts, lasts }: Matches): Name[] {
  return [
    ...(firsts > 0 ? ['first_name' as const] : []),
    ...(lasts > 0 ? ['last_name' as const] : []),
  ]
}

/** Where a run of matches lies in the order: from `start`, `size` of them. */
interface Block {
  readonly start: number
  readonly size: number
}

type Db = Kysely<DatabaseSchema>
/** A count as each driver reads it: a number (SQLite), a string (pg's bigint). */
type Counted = number | string | bigint
type MemberExpressions = ExpressionBuilder<DatabaseSchema & { m: DatabaseSchema['member'] }, 'm'>

export class MemberSearchQueries {
  constructor(
    private readonly engine: EngineTraits,
    private readonly gatherLimit = GATHER_LIMIT,
  ) {}

  /** The ids of one page of matches in the search's order, and the number of all matches. */
  async page(
    db: Db,
    search: MemberSearch,
    { page, size }: PageRequest,
  ): Promise<{ ids: string[]; total: number }> {
    const range = prefixRange(search.namePrefix)
    const matches = await this.#count(db, range)
    const total = matches.firsts + matches.lasts
    const offset = page * size
    if (offset >= total) return { ids: [], total }
    const slice = sliceOf(orderOf(search), offset, size, total)
    const ids =
      total <= this.gatherLimit
        ? await this.#gathered(db, range, slice)
        : await this.#walkedOrBlock(db, range, matches, slice)
    return { ids: slice.reversed ? ids.reverse() : ids, total }
  }

  /** The ids of every match in the search's order; undefined when there are more than `limit`. */
  async all(db: Db, search: MemberSearch, limit: number): Promise<string[] | undefined> {
    const range = prefixRange(search.namePrefix)
    const { firsts, lasts } = await this.#count(db, range)
    const total = firsts + lasts
    if (total > limit) return undefined
    if (total === 0) return []
    const order = orderOf(search)
    return this.#gathered(db, range, { order, start: 0, count: total, reversed: false })
  }

  async #count(db: Db, range: PrefixRange): Promise<Matches> {
    const count = (matching: (eb: MemberExpressions) => Expression<SqlBool>) =>
      db
        .selectFrom('member as m')
        .where(matching)
        .select((eb) => eb.fn.countAll<Counted>().as('n'))
    const { firsts, lasts } = await db
      .selectNoFrom([
        count((eb) => firstNameIn(eb, range)).as('firsts'),
        count((eb) => onlyLastNameIn(eb, range)).as('lasts'),
      ])
      .executeTakeFirstOrThrow()
    return { firsts: Number(firsts), lasts: Number(lasts) }
  }

  /**
   * Ordered by a name, the members whose that name is in range follow one another: one
   * range of the name's index, where every entry matches. The other name's matches lie
   * before and after them, scattered over the whole index; counting those before (one
   * scan of the other name's range, whose index carries this name) places the block.
   */
  async #blockOf(
    db: Db,
    range: PrefixRange,
    matches: Matches,
    { column, direction }: OrderKey,
  ): Promise<Block | undefined> {
    if (column !== 'first_name' && column !== 'last_name') return undefined
    // The other name's matches: the last-name ones for a first-name block, and so on.
    const { before, within } = await db
      .selectFrom('member as m')
      .where((eb) => (column === 'first_name' ? onlyLastNameIn(eb, range) : firstNameIn(eb, range)))
      .select((eb) => [
        eb.fn.countAll<Counted>().filterWhere(`m.${column}`, '<', range.from).as('before'),
        eb.fn
          .countAll<Counted>()
          .filterWhere((eb) => inRange(eb, eb.ref(`m.${column}`), range))
          .as('within'),
      ])
      .executeTakeFirstOrThrow()
    // The other name's matches with this name in range too are in the block.
    const start = Number(before)
    const size = (column === 'first_name' ? matches.firsts : matches.lasts) + Number(within)
    if (direction === 'asc') return { start, size }
    return { start: matches.firsts + matches.lasts - start - size, size }
  }

  /**
   * A page that lies wholly in its first key's name block is read from that block alone,
   * a range of the name's index, walked from its nearer end; any other is walked.
   */
  async #walkedOrBlock(
    db: Db,
    range: PrefixRange,
    matches: Matches,
    slice: Slice,
  ): Promise<string[]> {
    const [first] = slice.order as [OrderKey]
    const block = await this.#blockOf(db, range, matches, first)
    const inBlock =
      block !== undefined &&
      slice.start >= block.start &&
      slice.start + slice.count <= block.start + block.size
    if (!inBlock) return this.#walked(db, range, namesMatching(matches), slice)
    const local = sliceOf(slice.order, slice.start - block.start, slice.count, block.size)
    const ids = await this.#walked(db, range, [first.column as Name], local)
    return local.reversed ? ids.reverse() : ids
  }

  /** Every match through the name ranges, sorted; for narrow searches. */
  async #gathered(db: Db, range: PrefixRange, { order, start, count }: Slice): Promise<string[]> {
    const columns = order.map(({ column }) => `m.${column}` as const)
    const matches = db
      .selectFrom('member as m')
      .where((eb) => firstNameIn(eb, range))
      .select(columns)
      .unionAll(
        db
          .selectFrom('member as m')
          .where((eb) => onlyLastNameIn(eb, range))
          .select(columns),
      )
    let query = db.selectFrom(matches.as('matches')).select('matches.member_id')
    for (const { column, direction } of order) query = query.orderBy(`matches.${column}`, direction)
    const rows = await query.limit(count).offset(start).execute()
    return rows.map((row) => row.member_id)
  }

  /**
   * A walk of the first key's index, keeping the members one of `names` matches; for
   * broad searches. Walking a name's own index for that name alone is a range seek.
   */
  async #walked(
    db: Db,
    range: PrefixRange,
    names: readonly Name[],
    slice: Slice,
  ): Promise<string[]> {
    const [first, ...rest] = slice.order as [OrderKey, ...OrderKey[]]
    const walk = this.engine.indexWalk
    if (walk.setup) await walk.setup.execute(db)
    const matching = (eb: MemberExpressions) =>
      eb.or(
        names.map((name) => {
          const ref = eb.ref(`m.${name}`)
          return inRange(eb, name === first.column ? ref : walk.filterColumn(ref), range)
        }),
      )
    const key = `m.${first.column}` as const
    const walked = db.selectFrom('member as m').where(matching)
    // The tie-break follows the key's direction: the index's own order, nothing to sort.
    const sameDirection = rest.every(({ direction }) => direction === first.direction)
    if (rest.length <= 1 && sameDirection) {
      const rows = await inOrder(walked.select('m.member_id'), slice.order)
        .limit(slice.count)
        .offset(slice.start)
        .execute()
      return rows.map((row) => row.member_id)
    }
    // The value of the first key at the page's start, and how many of its group come first.
    const indexOrder = [first, { column: 'member_id', direction: first.direction }] as const
    const at = await inOrder(walked.select([`${key} as value`, 'm.member_id']), indexOrder)
      .limit(1)
      .offset(slice.start)
      .executeTakeFirstOrThrow()
    const before = first.direction === 'asc' ? '<' : '>'
    const { n: earlier } = await walked
      .where(key, '=', at.value)
      .where('m.member_id', before, at.member_id)
      .select((eb) => eb.fn.countAll<Counted>().as('n'))
      .executeTakeFirstOrThrow()
    const rows = await inOrder(
      walked.where(key, first.direction === 'asc' ? '>=' : '<=', at.value).select('m.member_id'),
      slice.order,
    )
      .limit(slice.count)
      .offset(Number(earlier))
      .execute()
    return rows.map((row) => row.member_id)
  }
}

function inRange(
  eb: MemberExpressions,
  value: Expression<string>,
  { from, below }: PrefixRange,
): Expression<SqlBool> {
  return below === undefined
    ? eb(value, '>=', from)
    : eb.and([eb(value, '>=', from), eb(value, '<', below)])
}

function firstNameIn(eb: MemberExpressions, range: PrefixRange): Expression<SqlBool> {
  return inRange(eb, eb.ref('m.first_name'), range)
}

function lastNameIn(eb: MemberExpressions, range: PrefixRange): Expression<SqlBool> {
  return inRange(eb, eb.ref('m.last_name'), range)
}

/** The last-name matches not counted among the first-name ones: each member once. */
function onlyLastNameIn(eb: MemberExpressions, range: PrefixRange): Expression<SqlBool> {
  return eb.and([lastNameIn(eb, range), eb.not(firstNameIn(eb, range))])
}
