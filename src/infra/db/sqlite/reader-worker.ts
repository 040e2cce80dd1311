import { parentPort, workerData } from 'node:worker_threads'
import type SqliteDatabase from 'better-sqlite3'
import { loadSqliteDriver } from './sqlite-driver.js'

/**
 * One reader thread (readers.ts): its own read-only connection to the database file,
 * running the statements it is sent one at a time. WAL lets it read while the main
 * connection writes; a transaction (begin … commit) reads one snapshot.
 */

export interface ReaderSettings {
  readonly file: string
  /** How long a read waits for a lock (WAL recovery, a checkpoint restarting the log). */
  readonly busyTimeoutMs: number
  /** Kibibytes of page cache; the operating system caches the file as well. */
  readonly cacheKib: number
}

export interface ReaderRequest {
  readonly id: number
  readonly sql: string
  readonly parameters: readonly unknown[]
}

export type ReaderReply =
  | { readonly id: number; readonly rows: unknown[] }
  | { readonly id: number; readonly error: { readonly message: string; readonly code?: string } }

/** The service issues a few dozen distinct read statements; each is prepared once. */
const STATEMENT_CACHE_SIZE = 128

const settings = workerData as ReaderSettings
const Sqlite = await loadSqliteDriver()
const database = new Sqlite(settings.file, { readonly: true, fileMustExist: true })
database.pragma(`busy_timeout = ${settings.busyTimeoutMs}`)
database.pragma(`cache_size = -${settings.cacheKib}`)
const statements = new Map<string, SqliteDatabase.Statement>()

function prepared(sql: string): SqliteDatabase.Statement {
  let statement = statements.get(sql)
  if (!statement) {
    if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear()
    statement = database.prepare(sql)
    statements.set(sql, statement)
  }
  return statement
}

function answer({ id, sql, parameters }: ReaderRequest): ReaderReply {
  try {
    const statement = prepared(sql)
    if (statement.reader) return { id, rows: statement.all(parameters) }
    statement.run(parameters)
    return { id, rows: [] }
  } catch (error) {
    const { message, code } = error as { message: string; code?: string }
    return { id, error: { message, ...(code !== undefined && { code }) } }
  }
}

parentPort?.on('message', (request: ReaderRequest) => parentPort?.postMessage(answer(request)))
parentPort?.postMessage('ready')
