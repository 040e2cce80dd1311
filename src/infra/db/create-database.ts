import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import type SqliteDatabase from 'better-sqlite3'
import {
  type Dialect,
  Kysely,
  type LogEvent,
  PostgresDialect,
  SqliteAdapter,
  type SqliteDatabase as SqliteDatabaseLike,
  SqliteDialect,
  sql,
} from 'kysely'
import type pg from 'pg'
import type { DatabaseConfig } from '../../config.js'
import { type DialectProfile, POSTGRES, SQLITE } from './dialect.js'
import { migrateToLatest } from './migrate.js'
import type { DatabaseSchema } from './schema.js'
import { translatingErrors } from './translate-errors.js'

export interface Database {
  readonly db: Kysely<DatabaseSchema>
  readonly profile: DialectProfile
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>
  /** Connection pool figures (PostgreSQL); SQLite has one connection and no pool. */
  poolStats(): PoolStats | undefined
  close(): Promise<void>
}

export interface PoolStats {
  readonly total: number
  readonly idle: number
  /** Queries waiting for a free connection. */
  readonly waiting: number
}

export interface DatabaseEvents {
  /** A pooled connection failed (the pool replaces it); worth a log line, not a crash. */
  onConnectionError?: (error: Error) => void
  /** Every query with its parameters and duration, for trace logging and query-plan tests. */
  onQuery?: (query: ExecutedQuery) => void
}

export interface DatabaseOptions extends DatabaseEvents {
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

interface Opened {
  readonly dialect: Dialect
  readonly poolStats: () => PoolStats | undefined
}

/**
 * Kysely assumes one process per SQLite file and takes no migration lock there. Holding
 * SQLite's write lock (BEGIN IMMEDIATE) from before reading the applied migrations until
 * after the last one makes processes starting together on one file wait their turn.
 */
class SqliteLockingAdapter extends SqliteAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>) {
    await sql`begin immediate`.execute(db)
  }
  override async releaseMigrationLock(db: Kysely<unknown>) {
    await sql`commit`.execute(db)
  }
}

class LockingSqliteDialect extends SqliteDialect {
  override createAdapter() {
    return new SqliteLockingAdapter()
  }
}

/** Statements kept prepared; the service issues a few dozen distinct SQL texts. */
const STATEMENT_CACHE_SIZE = 256

/**
 * Kysely prepares every statement anew; preparing costs more than running a lookup
 * by key. The service's SQL texts are few and fixed (values are always parameters),
 * so each is prepared once and reused.
 */
function reusingStatements(database: SqliteDatabase.Database): SqliteDatabaseLike {
  const statements = new Map<string, SqliteDatabase.Statement>()
  return {
    close: () => database.close(),
    prepare: (text: string) => {
      let statement = statements.get(text)
      if (!statement) {
        statement = database.prepare(text)
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear()
        statements.set(text, statement)
      }
      return statement
    },
  }
}

// Each driver is loaded only when configured: the other one would only slow the start.
async function openSqlite(file: string, timeoutMs: number): Promise<Opened> {
  const { default: SqliteDatabase } = await import('better-sqlite3')
  mkdirSync(dirname(file), { recursive: true })
  const database = new SqliteDatabase(file)
  database.pragma('journal_mode = WAL')
  // NORMAL is durable against process crashes in WAL mode; only an OS crash may lose the last commits.
  database.pragma('synchronous = NORMAL')
  database.pragma('foreign_keys = ON')
  // How long a write waits for another process's lock on the file.
  database.pragma(`busy_timeout = ${timeoutMs}`)
  return {
    dialect: new LockingSqliteDialect({ database: reusingStatements(database) }),
    poolStats: () => undefined,
  }
}

const DATE_OID = 1082

/** A PostgreSQL `date` stays the `yyyy-MM-dd` text it is, instead of a local-midnight Date. */
function typeParser(types: typeof pg.types) {
  return (oid: number, format?: 'text' | 'binary') => {
    if (oid === DATE_OID) return (value: string) => value
    return format === 'binary' ? types.getTypeParser(oid, 'binary') : types.getTypeParser(oid)
  }
}

async function openPostgres(
  url: string,
  poolMax: number,
  timeoutMs: number,
  events: DatabaseEvents,
): Promise<Opened> {
  const { default: pg } = await import('pg')
  const pool = new pg.Pool({
    connectionString: url,
    types: { getTypeParser: typeParser(pg.types) },
    max: poolMax,
    // Connecting, or waiting for a free connection.
    connectionTimeoutMillis: timeoutMs,
    // The server cancels a statement past it; the client gives up on one whose answer
    // does not come (a dead network), a little later.
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs + 250,
    keepAlive: true,
    idleTimeoutMillis: 30_000,
  })
  // A connection that dies (server restart, network cut) emits 'error' on its client. The
  // pool listens only while the client is idle; one checked out by a query (Kysely adds no
  // listener) would crash the process. The query itself still fails, and the pool drops
  // the broken client when it is released.
  pool.on('error', (error) => events.onConnectionError?.(error))
  pool.on('connect', (client) => client.on('error', (error) => events.onConnectionError?.(error)))
  return {
    dialect: new PostgresDialect({ pool }),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  }
}

/** Opens the configured database and brings its schema to the latest migration. */
export async function createDatabase(
  config: DatabaseConfig,
  options: DatabaseOptions = {},
): Promise<Database> {
  const { timeoutMs = DEFAULT_TIMEOUT_MS, ...events } = options
  const profile = config.kind === 'sqlite' ? SQLITE : POSTGRES
  const { dialect, poolStats } =
    config.kind === 'sqlite'
      ? await openSqlite(config.file, timeoutMs)
      : await openPostgres(config.url, config.poolMax, timeoutMs, events)
  const { onQuery } = events
  const db = new Kysely<DatabaseSchema>({
    dialect: translatingErrors(dialect, profile),
    ...(onQuery && {
      log: (event: LogEvent) =>
        onQuery({
          sql: event.query.sql,
          parameters: event.query.parameters,
          durationMs: event.queryDurationMillis,
        }),
    }),
  })
  try {
    await migrateToLatest(db, profile)
  } catch (error) {
    await db.destroy()
    throw error
  }
  return {
    db,
    profile,
    ping: async () => {
      await sql`select 1`.execute(db)
    },
    poolStats,
    close: () => db.destroy(),
  }
}
