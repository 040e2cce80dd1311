import type { EngineTraits } from '../../../../infra/db/engine/traits.js'
import { type IndexChanges, indexChanges } from '../../../../infra/db/index-changes.js'
import type { ServiceMigration } from '../../../../infra/db/migrate.js'

/** The sortable columns of a member search, each with the index that walks it in order. */
export const MEMBER_ORDER_INDEXES = {
  member_id: 'member_by_member_id_idx',
  first_name: 'member_by_first_name_idx',
  last_name: 'member_by_last_name_idx',
  date_of_birth: 'member_by_date_of_birth_idx',
  email_address: 'member_by_email_address_idx',
  created_at: 'member_by_created_at_idx',
  last_modified_at: 'member_by_last_modified_at_idx',
} as const

/**
 * One index per sortable column, ordered by it and then by member_id (the search's
 * tie-break), carrying both names (member-search.ts explains the plans they serve):
 *  - a broad search walks the index of its first sort key in order and keeps the members
 *    whose names match, reading neither the table nor a sorter: a page deep in 200,000
 *    matches costs a walk over part of one index, not a sort of every match;
 *  - the first and last name indexes are also the prefix ranges that count the matches
 *    and gather those of a narrow search, without reading the table.
 * The two name indexes of 0002 are replaced by the wider ones.
 */
export const MEMBER_SEARCH_INDEXES: IndexChanges = {
  table: 'member',
  drop: ['member_first_name_idx', 'member_last_name_idx'],
  create: Object.entries(MEMBER_ORDER_INDEXES).map(([column, name]) => {
    const names = ['first_name', 'last_name'].filter((other) => other !== column)
    return {
      name,
      columns: column === 'member_id' ? [column, ...names] : [column, 'member_id', ...names],
    }
  }),
}

/**
 * Built while members are written (CONCURRENTLY on PostgreSQL, index-changes.ts). Until
 * this release the same indexes were built in the migrations' transaction, which held off
 * writes to member for the whole build; a database that applied 0004 then has them
 * already and is not touched again.
 */
export function memberSearchIndexes(engine: EngineTraits): ServiceMigration {
  return indexChanges(engine, MEMBER_SEARCH_INDEXES)
}
