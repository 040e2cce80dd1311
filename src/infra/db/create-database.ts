import { type Dialect, Kysely, sql } from 'kysely'
import type { DatabaseConfig } from './database-config.js'
import type { EngineTraits, PoolStats } from './engine/traits.js'
import {
  type ExecutedQuery,
  InstrumentedDialect,
  layered,
  queryLog,
  type StatementLayer,
} from './instrumentation.js'
import { type MigrationOutcome, type Migrations, migrateToLatest } from './migrate.js'
import { openPostgres } from './postgres/postgres.js'
import { POSTGRES } from './postgres/postgres-traits.js'
import { ReplicaFirstDialect } from './postgres/replica-reads.js'
import { type DirectRead, type Precompile, precompiler, StatementNames } from './precompiled.js'
import type { DatabaseSchema } from './schema.js'
import { ReaderThreadsDialect } from './sqlite/readers.js'
import { openSqlite } from './sqlite/sqlite.js'
import { SQLITE } from './sqlite/sqlite-traits.js'
import { tracingStatements } from './traced-statements.js'
import { cancelledReadsBusy, translatingCalls, translatingErrors } from './translate-errors.js'

export type { DatabaseConfig } from './database-config.js'
export type { PoolStats } from './engine/traits.js'
export type { ExecutedQuery } from './instrumentation.js'

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
  readonly engine: EngineTraits
  /**
   * A query compiled once and run many times (precompiled.ts): directly where the engine
   * allows it, through the same statement layers as every other statement of `db`.
   */
  readonly precompile: Precompile
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>
  /** Resolves when the read replica answers; undefined without one. */
  readonly pingReplica: (() => Promise<void>) | undefined
  /** Connection pool figures (PostgreSQL); SQLite has one connection and no pool. */
  poolStats(): PoolStats | undefined
  /** What the migrations at start applied, and the newer release's they found. */
  readonly migrated: MigrationOutcome
  close(): Promise<void>
}

/** What a repository uses of its database: the connections, its precompiled statements, its engine's traits. */
export type RepositoryDatabase = Pick<Database, 'db' | 'reads' | 'precompile' | 'engine'>

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
  /** The schema versions to bring the database to (resources/index.ts, MIGRATIONS). */
  migrations: Migrations
  /** Every statement as an OpenTelemetry span (traced-statements.ts). */
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

/**
 * The long reads' own connections (`Database.reads`): SQLite's reader threads, or a
 * PostgreSQL pool of their own, whose statement timeout is the read timeout; of the
 * replica, with the primary's as fallback, when DATABASE_READ_URL is set.
 */
async function openLongReads(
  config: DatabaseConfig,
  { connections, timeoutMs }: ReadsOptions,
  events: DatabaseEvents,
  statementNames: StatementNames,
): Promise<{ dialect: Dialect; ping?: () => Promise<void> }> {
  if (config.kind === 'sqlite') {
    const readers = { file: config.file, size: connections, timeoutMs, busyTimeoutMs: timeoutMs }
    return { dialect: new ReaderThreadsDialect(readers) }
  }
  const pool = (url: string) =>
    openPostgres({
      ...config,
      url,
      poolMax: connections === 0 ? config.poolMax : connections,
      timeoutMs,
      statementNames,
      onConnectionError: events.onConnectionError,
    })
  const primary = await pool(config.url)
  if (!config.readUrl) return { dialect: primary.dialect }
  const replica = await pool(config.readUrl)
  const dialect = new ReplicaFirstDialect(replica.dialect, primary.dialect, {
    onFallback: events.onReplicaFallback,
    isCancellation: (error) => POSTGRES.isCancellation(error),
  })
  return { dialect, ping: replica.ping }
}

/**
 * Every statement's layers, outermost first: errors translated, a cancelled long read
 * made a busy answer, a span, the query log. The same for Kysely's connections and the
 * direct reads, so a statement runs one way whatever is switched on.
 */
function statementLayers(
  engine: EngineTraits,
  { traced, onQuery }: { traced: boolean; onQuery: DatabaseEvents['onQuery'] },
  cancelled?: StatementLayer,
): StatementLayer {
  return layered([
    translatingErrors(engine),
    ...(cancelled ? [cancelled] : []),
    ...(traced ? [tracingStatements(engine)] : []),
    ...(onQuery ? [queryLog(onQuery)] : []),
  ])
}

/** Opens the configured database and brings its schema to the latest migration. */
export async function createDatabase(
  config: DatabaseConfig,
  options: DatabaseOptions,
): Promise<Database> {
  const {
    migrations,
    timeoutMs = DEFAULT_TIMEOUT_MS,
    traced = false,
    reads = DEFAULT_READS,
    ...events
  } = options
  const engine = config.kind === 'sqlite' ? SQLITE : POSTGRES
  const watching = { traced, onQuery: events.onQuery }
  const statements = statementLayers(engine, watching)
  const calls = translatingCalls(engine)
  const longReadStatements = statementLayers(
    engine,
    watching,
    cancelledReadsBusy(engine, {
      retryAfterSeconds: Math.max(1, Math.ceil(reads.timeoutMs / 1000)),
      onCancelled: events.onReadCancelled,
    }),
  )
  const names = new StatementNames()
  const opened =
    config.kind === 'sqlite'
      ? await openSqlite(config.file, timeoutMs)
      : await openPostgres({
          ...config,
          timeoutMs,
          statementNames: names,
          onConnectionError: events.onConnectionError,
        })
  const db = new Kysely<DatabaseSchema>({
    dialect: new InstrumentedDialect(opened.dialect, { statements, calls }),
  })
  let migrated: MigrationOutcome
  try {
    migrated = await migrateToLatest(db, engine, migrations, opened.migrationLock)
  } catch (error) {
    await db.destroy()
    throw error
  }
  const { directReads } = opened
  const readDirectly: DirectRead = (text, parameters, atMostOne) =>
    directReads.ready(text)
      ? statements(text, parameters, () => directReads.run(text, parameters, atMostOne))
      : undefined
  const longReads = await openLongReads(config, reads, events, names)
  const readsDb = new Kysely<DatabaseSchema>({
    dialect: new InstrumentedDialect(longReads.dialect, { statements: longReadStatements, calls }),
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
    engine,
    precompile: precompiler(names, db, readDirectly),
    ping: opened.ping,
    pingReplica: longReads.ping,
    poolStats: opened.poolStats,
    migrated,
    close: async () => {
      await readsDb.destroy()
      await db.destroy()
    },
  }
}
