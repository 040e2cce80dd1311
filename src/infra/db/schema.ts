import type { ColumnType } from 'kysely'

/**
 * Column types as Kysely sees them. Time stamps are written as ISO strings on both
 * databases; a column read as it is comes back as a Date (pg) or a string (SQLite), and
 * the resources' stamps are selected as text on both (EngineTraits.instant). Booleans read
 * back as boolean (pg) or 0/1 (SQLite). The repositories normalise both.
 */
export type Timestamp = ColumnType<Date | string, string, string>
/** Written only through the TRUE/FALSE literals (SQLite cannot bind a JS boolean). */
export type StoredBoolean = ColumnType<boolean | number, never, boolean>

export interface IdempotencyKeyTable {
  idempotency_key: string
  /** SHA-256 of method, path and body, hex. */
  request_hash: string
  created_at: Timestamp
  status_code: number | null
  response_body: string | null
  location: string | null
  etag: string | null
}

/**
 * Every table, as Kysely sees them: the service's own here, and each resource's added by
 * its infra/ (`declare module` merges its tables into this interface).
 */
export interface DatabaseSchema {
  idempotency_key: IdempotencyKeyTable
}

/** A stored time stamp as the Date it is: pg reads a Date, SQLite the ISO text. */
export function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value)
}

/** A stored boolean as the boolean it is: pg reads a boolean, SQLite 0 or 1. */
export function toBoolean(value: boolean | number): boolean {
  return value === true || value === 1
}
