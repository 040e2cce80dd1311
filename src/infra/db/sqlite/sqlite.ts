import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type SqliteDatabase from 'better-sqlite3'
import { SqliteDialect, sql } from 'kysely'
import type { MigrationLock } from '../engine/migration-lock.js'
import type { OpenedEngine } from '../engine/traits.js'
import { DirectReadsDialect } from './direct-reads.js'
import { sqliteAccessProblem } from './file-access.js'
import { loadSqliteDriver } from './sqlite-driver.js'

/**
 * SQLite's write lock (BEGIN IMMEDIATE), held from before reading the applied migrations
 * until after the last one, makes processes starting together on one file wait their
 * turn; every pending migration runs in that one transaction, so a failed one leaves
 * nothing behind (a failed statement does not end a SQLite transaction: it is rolled back
 * here, never committed). An index built there blocks writers, which SQLite's single
 * writer does for any write anyway.
 */
const MIGRATION_LOCK: MigrationLock = {
  hold: (db, migrate) =>
    db.connection().execute(async (connection) => {
      await sql`begin immediate`.execute(connection)
      try {
        const result = await migrate({
          db: connection,
          inOneTransaction: true,
          stillHeld: () => undefined,
        })
        await sql`commit`.execute(connection)
        return result
      } catch (error) {
        await sql`rollback`.execute(connection).catch(() => undefined)
        throw error
      }
    }),
}

/** Statements kept prepared; the service issues a few dozen distinct SQL texts. */
const STATEMENT_CACHE_SIZE = 256

/**
 * Kysely prepares every statement anew; preparing costs more than running a lookup
 * by key. The service's SQL texts are few and fixed (values are always parameters),
 * so each is prepared once and reused.
 */
function reusingStatements(database: SqliteDatabase.Database): {
  close: () => void
  prepare: (text: string) => SqliteDatabase.Statement
} {
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

/**
 * WAL mode, asked again while another process holds the file's write lock (a new file
 * that another instance is migrating): SQLite answers SQLITE_BUSY at once there rather
 * than wait in its busy handler, which could deadlock a lock upgrade.
 */
async function intoWal(database: SqliteDatabase.Database, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    try {
      database.pragma('journal_mode = WAL')
      return
    } catch (error) {
      const busy = (error as { code?: unknown }).code === 'SQLITE_BUSY'
      if (!busy || performance.now() >= deadline) throw error
      await sleep(WAL_RETRY_MS)
    }
  }
}

const WAL_RETRY_MS = 50

/** The embedded database: one file, opened in WAL mode. */
export async function openSqlite(file: string, timeoutMs: number): Promise<OpenedEngine> {
  // Loaded only when configured: the other driver would only slow the start.
  const SqliteDatabase = await loadSqliteDriver()
  mkdirSync(dirname(file), { recursive: true })
  let database: SqliteDatabase.Database
  try {
    // timeout: how long a write waits for another process's lock on the file (busy_timeout).
    database = new SqliteDatabase(file, { timeout: timeoutMs })
    // The first write: a file the service may read but not write fails here, not later.
    await intoWal(database, timeoutMs)
  } catch (error) {
    throw (error instanceof Error && sqliteAccessProblem(file, error)) || error
  }
  // NORMAL is durable against process crashes in WAL mode; only an OS crash may lose the last commits.
  database.pragma('synchronous = NORMAL')
  database.pragma('foreign_keys = ON')
  const statements = reusingStatements(database)
  const dialect = new DirectReadsDialect(new SqliteDialect({ database: statements }))
  return {
    dialect,
    migrationLock: MIGRATION_LOCK,
    directReads: dialect.readsOf(statements.prepare),
    poolStats: () => undefined,
    ping: async () => {
      statements.prepare('select 1').get()
    },
  }
}
