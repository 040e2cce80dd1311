import { type RawBuilder, sql } from 'kysely'
import { type EngineTraits, errorField } from '../engine/traits.js'

/** The years to_char writes as toISOString() does, in four digits: 1 to 9999. */
const inFourDigitYears = (stamp: RawBuilder<unknown>) =>
  sql`${stamp} >= '0001-01-01T00:00:00Z' and ${stamp} < '10000-01-01T00:00:00Z'`

/** A timestamptz as toISOString() writes it, whatever the session's TimeZone. */
const isoText = (stamp: RawBuilder<unknown>) =>
  sql`to_char(${stamp} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

export const POSTGRES: EngineTraits = {
  kind: 'postgres',
  timestampType: 'timestamptz(3)',
  dateType: 'date',
  instant: (column) => {
    const stamp = sql.ref(column)
    return sql<string>`case when ${inFourDigitYears(stamp)} then ${isoText(stamp)} else ${stamp}::text end`
  },
  insertsInWith: true,
  text: (maxLength) => sql.raw(`varchar(${maxLength}) collate "C"`),
  uniqueViolationColumns: (error) => {
    if (errorField(error, 'code') !== '23505') return []
    // detail: "Key (sign_id)=(a@example.com) already exists."
    const columns = /^Key \(([^)]*)\)=/.exec(errorField(error, 'detail') ?? '')?.[1] ?? ''
    return columns.split(', ')
  },
  // query_canceled: the statement timeout (or a cancel request) stopped the statement.
  isCancellation: (error) => errorField(error, 'code') === '57014',
  indexWalk: { filterColumn: (column) => column, setup: sql`set local enable_sort = off` },
}
