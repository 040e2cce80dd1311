import type { MemberSearch, SortableProperty } from '../domain/model.js'
import type { MEMBER_ORDER_INDEXES } from './migrations/0004-member-search-indexes.js'

/*
 * The order a member search reads its matches in (member-search.ts): the search's sort
 * keys as columns, and which end of that order a page is read from.
 */

export type Column = keyof typeof MEMBER_ORDER_INDEXES
export type Direction = 'asc' | 'desc'

export interface OrderKey {
  readonly column: Column
  readonly direction: Direction
}

const COLUMNS: Readonly<Record<SortableProperty, Column>> = {
  memberId: 'member_id',
  firstName: 'first_name',
  lastName: 'last_name',
  dateOfBirth: 'date_of_birth',
  emailAddress: 'email_address',
  createdAt: 'created_at',
  lastModifiedAt: 'last_modified_at',
}

/** The search's keys, then member_id ascending; nothing after member_id, which is unique. */
export function orderOf(search: MemberSearch): OrderKey[] {
  const keys: OrderKey[] = []
  for (const { property, direction } of search.sort) {
    keys.push({ column: COLUMNS[property], direction: direction === 'ASC' ? 'asc' : 'desc' })
    if (property === 'memberId') return keys
  }
  keys.push({ column: 'member_id', direction: 'asc' })
  return keys
}

const flipped = (direction: Direction): Direction => (direction === 'asc' ? 'desc' : 'asc')

/** Where a page starts in the order it is read in, and whether that order is reversed. */
export interface Slice {
  readonly order: readonly OrderKey[]
  readonly start: number
  readonly count: number
  readonly reversed: boolean
}

export function sliceOf(
  order: readonly OrderKey[],
  offset: number,
  size: number,
  total: number,
): Slice {
  const count = Math.min(size, total - offset)
  if (offset + count / 2 <= total / 2) return { order, start: offset, count, reversed: false }
  const reversedOrder = order.map((key) => ({ ...key, direction: flipped(key.direction) }))
  return { order: reversedOrder, start: total - offset - count, count, reversed: true }
}

/** `query` ordered by `order`'s keys, each on the member table. */
export function inOrder<Q extends { orderBy(column: never, direction: Direction): Q }>(
  query: Q,
  order: readonly OrderKey[],
): Q {
  let ordered = query
  for (const { column, direction } of order) {
    ordered = ordered.orderBy(`m.${column}` as never, direction)
  }
  return ordered
}
