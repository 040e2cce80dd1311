import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import type SqliteDatabase from 'better-sqlite3'
import { SqliteDialect } from 'kysely'
import { MigrationLockDialect } from '../engine/migration-lock.js'
import type { OpenedEngine } from '../engine/traits.js'
import { DirectReadsDialect } from './direct-reads.js'
import { sqliteAccessProblem } from './file-access.js'
import { loadSqliteDriver } from './sqlite-driver.js'

/**
 * Kysely assumes one process per SQLite file and takes no migration lock there. Holding
 * SQLite's write lock (BEGIN IMMEDIATE) from before reading the applied migrations until
 * after the last one makes processes starting together on one file wait their turn.
 */
const MIGRATION_LOCK = ['begin immediate']

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

/** The embedded database: one file, opened in WAL mode. */
export async function openSqlite(file: string, timeoutMs: number): Promise<OpenedEngine> {
  // Loaded only when configured: the other driver would only slow the start.
  const SqliteDatabase = await loadSqliteDriver()
  mkdirSync(dirname(file), { recursive: true })
  let database: SqliteDatabase.Database
  try {
    database = new SqliteDatabase(file)
    // The first write: a file the service may read but not write fails here, not later.
    database.pragma('journal_mode = WAL')
  } catch (error) {
    throw (error instanceof Error && sqliteAccessProblem(file, error)) || error
  }
  // NORMAL is durable against process crashes in WAL mode; only an OS crash may lose the last commits.
  database.pragma('synchronous = NORMAL')
  database.pragma('foreign_keys = ON')
  // How long a write waits for another process's lock on the file.
  database.pragma(`busy_timeout = ${timeoutMs}`)
  const statements = reusingStatements(database)
  const dialect = new DirectReadsDialect(new SqliteDialect({ database: statements }))
  return {
    dialect: new MigrationLockDialect(dialect, MIGRATION_LOCK),
    directReads: dialect.readsOf(statements.prepare),
    poolStats: () => undefined,
    ping: async () => {
      statements.prepare('select 1').get()
    },
  }
}
