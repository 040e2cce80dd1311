import { type Expression, type RawBuilder, sql } from 'kysely'
import { parseInstant } from '../../domain/common/instant.js'

/**
 * The few real differences between SQLite and PostgreSQL that code outside this
 * file must know about. Everything else is written once for both.
 */
export interface DialectProfile {
  readonly kind: 'sqlite' | 'postgres'
  /** Column type for a UTC instant with millisecond precision. */
  readonly timestampType: 'text' | 'timestamptz(3)'
  /** Column type for a calendar day, read back as `yyyy-MM-dd`. */
  readonly dateType: 'text' | 'date'
  /**
   * Column type for text compared and sorted by code point, as SQLite does by default
   * (PostgreSQL needs the "C" collation), so prefix ranges and ordering agree on both.
   */
  text(maxLength: number): RawBuilder<unknown>
  /** The columns of the unique index a driver error reports as violated; [] for other errors. */
  uniqueViolationColumns(error: unknown): string[]
  /** Whether a driver error is a statement cancelled for running past its time (READ_TIMEOUT). */
  isCancellation(error: unknown): boolean
  /**
   * How a broad member search is made to walk the index of its sort key in order rather
   * than gather the name ranges and sort (member-search.ts): the name columns as its
   * filter reads them, and a statement run first in its transaction. SQLite's planner
   * takes the hint of a unary `+`, which keeps a column from using an index; PostgreSQL's
   * is told that sorting is a last resort, and still estimates the names from statistics.
   */
  readonly indexWalk: {
    readonly filterColumn: (column: Expression<string>) => Expression<string>
    readonly setup: RawBuilder<unknown> | undefined
  }
}

function errorField(error: unknown, field: 'code' | 'message' | 'detail'): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const value = (error as Record<string, unknown>)[field]
  return typeof value === 'string' ? value : undefined
}

export const SQLITE: DialectProfile = {
  kind: 'sqlite',
  timestampType: 'text',
  dateType: 'text',
  text: (maxLength) => sql.raw(`varchar(${maxLength})`),
  uniqueViolationColumns: (error) => {
    const code = errorField(error, 'code')
    if (code !== 'SQLITE_CONSTRAINT_UNIQUE' && code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') return []
    // "UNIQUE constraint failed: member_credential.sign_id"
    const columns = errorField(error, 'message')?.split('failed: ')[1] ?? ''
    return columns.split(', ').map((column) => column.split('.').pop() ?? column)
  },
  // The reader threads' own error (sqlite/readers.ts).
  isCancellation: (error) => errorField(error, 'code') === 'READ_TIMEOUT',
  indexWalk: { filterColumn: (column) => sql<string>`+${column}`, setup: undefined },
}

export const POSTGRES: DialectProfile = {
  kind: 'postgres',
  timestampType: 'timestamptz(3)',
  dateType: 'date',
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

export function toDate(value: Date | string): Date {
  return value instanceof Date ? value : parseInstant(value)
}

export function toBoolean(value: boolean | number): boolean {
  return value === true || value === 1
}
