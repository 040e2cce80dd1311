import { type Dialect, Kysely, type LogEvent, sql } from 'kysely'
import type { DatabaseConfig } from '../../config.js'
import { type DialectProfile, POSTGRES, SQLITE } from './dialect.js'
import { allowDirectReads } from './direct-reads.js'
import { migrateToLatest } from './migrate.js'
import type { PoolStats } from './opened-dialect.js'
import { openPostgres } from './postgres.js'
import { replicaFirst } from './replica-reads.js'
import type { DatabaseSchema } from './schema.js'
import { readersDialect } from './sqlite/readers.js'
import { openSqlite } from './sqlite.js'
import { tracingQueries } from './traced-queries.js'
import { cancelledReadsBusy, translateError, translatingErrors } from './translate-errors.js'

export type { PoolStats } from './opened-dialect.js'

export interface Database {
  readonly db: Kysely<DatabaseSchema>
  /**
   * For the long reads, which may be a little behind (member search, the todo list):
   * connections of their own, each statement cancelled past READ_TIMEOUT (a 503). On
   * SQLite, reader threads, off the event loop (sqlite/readers.ts); on PostgreSQL a pool
   * of its own, of the read replica when DATABASE_READ_URL is set, falling back to the
   * primary.
   */
  readonly reads: Kysely<DatabaseSchema>
  readonly profile: DialectProfile
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>
  /** Resolves when the read replica answers; undefined without one. */
  readonly pingReplica: (() => Promise<void>) | undefined
  /** Connection pool figures (PostgreSQL); SQLite has one connection and no pool. */
  poolStats(): PoolStats | undefined
  close(): Promise<void>
}

export interface DatabaseEvents {
  /** A pooled connection failed (the pool replaces it); worth a log line, not a crash. */
  onConnectionError?: (error: Error) => void
  /** The read replica failed a read, which the primary answered (replica-reads.ts). */
  onReplicaFallback?: (error: unknown) => void
  /** Every query with its parameters and duration, for trace logging and query-plan tests. */
  onQuery?: (query: ExecutedQuery) => void
  /** A long read was cancelled for running past its time (READ_TIMEOUT). */
  onReadCancelled?: () => void
}

/** The connections of the long reads (`Database.reads`). */
export interface ReadsOptions {
  /** Connections (PostgreSQL) or reader threads (SQLite); 0: as many as reads at once. */
  readonly connections: number
  /** Longest one statement may run before it is cancelled. */
  readonly timeoutMs: number
}

export interface DatabaseOptions extends DatabaseEvents {
  /** Every statement as an OpenTelemetry span (traced-queries.ts). */
  traced?: boolean
  /**
   * Longest a database operation may take: connecting, waiting for a connection or a
   * lock, running a statement. An outage then fails requests quickly instead of
   * holding them.
   */
  timeoutMs?: number
  reads?: ReadsOptions
}

const DEFAULT_TIMEOUT_MS = 1500
const DEFAULT_READS: ReadsOptions = { connections: 4, timeoutMs: DEFAULT_TIMEOUT_MS }

export interface ExecutedQuery {
  readonly sql: string
  readonly parameters: readonly unknown[]
  readonly durationMs: number
}

/** Every query with its parameters and duration, for `onQuery`. */
function queryLog(onQuery: DatabaseEvents['onQuery']) {
  return (
    onQuery && {
      log: (event: LogEvent) =>
        onQuery({
          sql: event.query.sql,
          parameters: event.query.parameters,
          durationMs: event.queryDurationMillis,
        }),
    }
  )
}

type Instrument = (dialect: Dialect, profile: DialectProfile) => Dialect

/**
 * The long reads' own connections (`Database.reads`): SQLite's reader threads, or a
 * PostgreSQL pool of their own, whose statement timeout is the read timeout; of the
 * replica, with the primary's as fallback, when DATABASE_READ_URL is set.
 */
async function openLongReads(
  config: DatabaseConfig,
  { connections, timeoutMs }: ReadsOptions,
  events: DatabaseEvents,
  instrumented: Instrument,
): Promise<{ dialect: Dialect; ping?: () => Promise<void> }> {
  if (config.kind === 'sqlite') {
    const readers = { file: config.file, size: connections, timeoutMs, busyTimeoutMs: timeoutMs }
    return { dialect: instrumented(readersDialect(readers), SQLITE) }
  }
  const pool = (url: string) =>
    openPostgres({
      ...config,
      url,
      poolMax: connections === 0 ? config.poolMax : connections,
      timeoutMs,
      onConnectionError: events.onConnectionError,
    })
  const primary = await pool(config.url)
  if (!config.readUrl) return { dialect: instrumented(primary.dialect, POSTGRES) }
  const replica = await pool(config.readUrl)
  const dialect = replicaFirst(replica.dialect, primary.dialect, {
    onFallback: events.onReplicaFallback,
    isCancellation: (error) => POSTGRES.isCancellation(error),
  })
  return { dialect: instrumented(dialect, POSTGRES), ping: replica.ping }
}

/** Opens the configured database and brings its schema to the latest migration. */
export async function createDatabase(
  config: DatabaseConfig,
  options: DatabaseOptions = {},
): Promise<Database> {
  const {
    timeoutMs = DEFAULT_TIMEOUT_MS,
    traced = false,
    reads = DEFAULT_READS,
    ...events
  } = options
  const instrumented = (dialect: Dialect, profile: DialectProfile) =>
    translatingErrors(traced ? tracingQueries(dialect, profile) : dialect, profile)
  const busyWhenCancelled = (dialect: Dialect, profile: DialectProfile) =>
    instrumented(
      cancelledReadsBusy(dialect, profile, {
        retryAfterSeconds: Math.max(1, Math.ceil(reads.timeoutMs / 1000)),
        onCancelled: events.onReadCancelled,
      }),
      profile,
    )
  const profile = config.kind === 'sqlite' ? SQLITE : POSTGRES
  const { dialect, poolStats, ping, readDirectly } =
    config.kind === 'sqlite'
      ? await openSqlite(config.file, timeoutMs)
      : await openPostgres({ ...config, timeoutMs, onConnectionError: events.onConnectionError })
  const db = new Kysely<DatabaseSchema>({
    dialect: instrumented(dialect, profile),
    ...queryLog(events.onQuery),
  })
  try {
    await migrateToLatest(db, profile)
  } catch (error) {
    await db.destroy()
    throw error
  }
  // Queries watched one by one (spans, onQuery) all take Kysely's path.
  if (readDirectly && !traced && !events.onQuery) {
    const throwTranslated = (error: unknown): never => {
      throw translateError(error, profile)
    }
    allowDirectReads(db, (sql, parameters) => {
      try {
        const rows = readDirectly(sql, parameters)
        return rows instanceof Promise ? rows.catch(throwTranslated) : rows
      } catch (error) {
        return throwTranslated(error)
      }
    })
  }
  const longReads = await openLongReads(config, reads, events, busyWhenCancelled)
  const readsDb = new Kysely<DatabaseSchema>({
    dialect: longReads.dialect,
    ...queryLog(events.onQuery),
  })
  try {
    // Opened now, not by the first search: SQLite's reader threads start, PostgreSQL connects.
    await sql`select 1`.execute(readsDb)
  } catch (error) {
    await readsDb.destroy()
    await db.destroy()
    throw error
  }
  return {
    db,
    reads: readsDb,
    profile,
    ping,
    pingReplica: longReads.ping,
    poolStats,
    close: async () => {
      await readsDb.destroy()
      await db.destroy()
    },
  }
}
