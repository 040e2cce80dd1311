import { type Dialect, Kysely, type LogEvent } from 'kysely'
import type { DatabaseConfig } from '../../config.js'
import { type DialectProfile, POSTGRES, SQLITE } from './dialect.js'
import { allowDirectReads } from './direct-reads.js'
import { migrateToLatest } from './migrate.js'
import type { PoolStats } from './opened-dialect.js'
import { openPostgres } from './postgres.js'
import { replicaFirst } from './replica-reads.js'
import type { DatabaseSchema } from './schema.js'
import { openSqlite } from './sqlite.js'
import { tracingQueries } from './traced-queries.js'
import { translateError, translatingErrors } from './translate-errors.js'

export type { PoolStats } from './opened-dialect.js'

export interface Database {
  readonly db: Kysely<DatabaseSchema>
  /**
   * For reads that may be a little behind (member search, the todo list): the read
   * replica when DATABASE_READ_URL is set, falling back to the primary; else `db`.
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
}

const DEFAULT_TIMEOUT_MS = 1500

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

/**
 * The read replica: a pool of its own, with half the time budget, so that a read it fails
 * still leaves the primary time to answer.
 */
async function openReplica(
  config: Extract<DatabaseConfig, { kind: 'postgres' }>,
  primary: Kysely<DatabaseSchema>,
  timeoutMs: number,
  events: DatabaseEvents,
  instrumented: (dialect: Dialect) => Dialect,
) {
  if (!config.readUrl) return undefined
  const replica = await openPostgres({
    ...config,
    url: config.readUrl,
    timeoutMs: Math.ceil(timeoutMs / 2),
    onConnectionError: events.onConnectionError,
  })
  const reads = new Kysely<DatabaseSchema>({
    dialect: instrumented(
      replicaFirst(replica.dialect, primary as Kysely<unknown>, {
        onFallback: events.onReplicaFallback,
      }),
    ),
    ...queryLog(events.onQuery),
  })
  return { reads, ping: replica.ping }
}

/** Opens the configured database and brings its schema to the latest migration. */
export async function createDatabase(
  config: DatabaseConfig,
  options: DatabaseOptions = {},
): Promise<Database> {
  const { timeoutMs = DEFAULT_TIMEOUT_MS, traced = false, ...events } = options
  const instrumented = (dialect: Dialect, profile: DialectProfile) =>
    translatingErrors(traced ? tracingQueries(dialect, profile) : dialect, profile)
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
  const replica =
    config.kind === 'postgres'
      ? await openReplica(config, db, timeoutMs, events, (replica) =>
          instrumented(replica, POSTGRES),
        )
      : undefined
  return {
    db,
    reads: replica?.reads ?? db,
    profile,
    ping,
    pingReplica: replica?.ping,
    poolStats,
    close: async () => {
      await replica?.reads.destroy()
      await db.destroy()
    },
  }
}
