import type { Dialect, Expression, RawBuilder } from 'kysely'
import type { MigrationLock } from './migration-lock.js'

/**
 * The traits of a database engine (sqlite/sqlite-traits.ts, postgres/postgres-traits.ts):
 * the few real differences between SQLite and PostgreSQL that code outside the engine's
 * folder must know about. Everything else is written once for both.
 */
export interface EngineTraits {
  readonly kind: 'sqlite' | 'postgres'
  /** Column type for a UTC instant with millisecond precision. */
  readonly timestampType: 'text' | 'timestamptz(3)'
  /**
   * A time stamp column as the service selects it: text in the form `toISOString()`
   * writes (stored-instant.ts reads it). SQLite stores that text. PostgreSQL formats its
   * `timestamptz` in the statement, so pg makes no Date of it to be formatted again; a
   * year outside 1 to 9999 comes as PostgreSQL's own text form.
   */
  instant(column: string): RawBuilder<string>
  /** Column type for a calendar day, read back as `yyyy-MM-dd`. */
  readonly dateType: 'text' | 'date'
  /**
   * Column type for text compared and sorted by code point, as SQLite does by default
   * (PostgreSQL needs the "C" collation), so prefix ranges and ordering agree on both.
   */
  text(maxLength: number): RawBuilder<unknown>
  /**
   * Whether a statement's WITH may insert. PostgreSQL runs rows of two tables as one
   * statement, atomic without a transaction (one round trip instead of four); SQLite's
   * WITH only reads, so it takes two statements in a transaction.
   */
  readonly insertsInWith: boolean
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

/** A string field of a driver error (`code`, `message`, `detail`), if it has one. */
export function errorField(
  error: unknown,
  field: 'code' | 'message' | 'detail',
): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const value = (error as Record<string, unknown>)[field]
  return typeof value === 'string' ? value : undefined
}

export interface PoolStats {
  readonly total: number
  readonly idle: number
  /** Queries waiting for a free connection. */
  readonly waiting: number
}

/**
 * Reads outside Kysely's connection machinery. A query through Kysely reaches the driver
 * through a chain of promises (connection provider, driver, a mutex on SQLite): for a
 * lookup by key that chain costs about as much as the lookup itself. The precompiled
 * statements (precompiled.ts) are run this way, through the same statement layers.
 */
export interface DirectReads {
  /** Whether `sql` may run directly now (SQLite: not while a transaction holds or awaits the connection). */
  ready(sql: string): boolean
  /**
   * Its rows: at once on SQLite, a promise on PostgreSQL. A statement that `atMostOne`
   * row can answer (a lookup by key) is stepped only to its first row on SQLite.
   */
  run(
    sql: string,
    parameters: readonly unknown[],
    atMostOne: boolean,
  ): unknown[] | Promise<unknown[]>
}

/** An engine's connections made ready (sqlite/sqlite.ts, postgres/postgres.ts), for create-database.ts to wrap. */
export interface OpenedEngine {
  readonly dialect: Dialect
  /** Connection pool figures (PostgreSQL); SQLite has one connection and no pool. */
  readonly poolStats: () => PoolStats | undefined
  /** Resolves when the database answers a trivial query. */
  readonly ping: () => Promise<void>
  readonly directReads: DirectReads
  /** How instances starting together take turns at the migrations (migrate.ts). */
  readonly migrationLock: MigrationLock
}
