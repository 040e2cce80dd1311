import { closeSync, fsyncSync, linkSync, openSync, renameSync } from 'node:fs'
import { dirname } from 'node:path'
import type SqliteDatabase from 'better-sqlite3'
import { DEFAULT_MIGRATION_TABLE } from 'kysely'

/**
 * What a SQLite backup and a restore share: the failure that names its file, the check
 * that a file is a sound database of this service, and the durable rename that puts a
 * finished file in place.
 */

/** Which file a failure concerns: the service's database (DATABASE_URL), or the backup. */
export type FileRole = 'database' | 'backup'

/** What went wrong, where the file system's or SQLite's own code does not say it. */
export type BackupProblem =
  /** A running service holds the database. */
  | 'in-use'
  /** A SQLite file, but no database of this service: no migrations table. */
  | 'foreign'
  /** Written by a newer release: a migration this one does not know. */
  | 'newer'
  /** integrity_check or foreign_key_check found faults. */
  | 'damaged'
  /** The backup file is there already. */
  | 'exists'
  /** The file system or SQLite refused: `code` says how. */
  | 'refused'

export class BackupFileError extends Error {
  /** Node's errno code or SQLite's (SQLITE_NOTADB, SQLITE_BUSY), when the cause has one. */
  readonly code: string | undefined

  constructor(
    readonly role: FileRole,
    readonly path: string,
    readonly problem: BackupProblem,
    message: string,
    cause?: unknown,
  ) {
    super(message, { cause })
    const code = cause instanceof Error && 'code' in cause ? cause.code : undefined
    this.code = typeof code === 'string' ? code : undefined
  }
}

/** The file a step is about, as the operator names it. */
export interface Concern {
  readonly role: FileRole
  readonly path: string
}

/** Runs `work`; a failure becomes a BackupFileError about `path`, unless it is one already. */
export function concerning<T>(role: FileRole, path: string, work: () => T): T {
  try {
    return work()
  } catch (error) {
    if (error instanceof BackupFileError) throw error
    const message = error instanceof Error ? error.message : String(error)
    throw new BackupFileError(role, path, 'refused', message, error)
  }
}

/** What the check found in a sound database of this service. */
export interface CheckedDatabase {
  /** Migrations applied to it; the service applies the rest of this release's at start. */
  readonly migrations: number
}

/** A database file written (a backup) or put in place (a restore), checked. */
export interface DatabaseCopied extends CheckedDatabase {
  readonly bytes: number
  readonly durationMs: number
}

const SHOWN_FAULTS = 3

/**
 * Whether `file` is a sound SQLite database of this service: integrity_check (every page,
 * every index against its table) and foreign_key_check find nothing, and its migrations
 * table names only migrations this release knows. A fault is told `about` the file the
 * operator named (`file` is a copy of it). Opened read-write, as a file in WAL mode
 * needs; the connection changes nothing.
 */
export function checkServiceDatabase(
  Sqlite: typeof SqliteDatabase,
  file: string,
  about: Concern,
  /** The names of every migration this release knows. */
  knownMigrations: readonly string[],
): CheckedDatabase {
  const fault = (problem: BackupProblem, message: string) =>
    new BackupFileError(about.role, about.path, problem, message)
  return concerning(about.role, about.path, () => {
    const db = new Sqlite(file, { fileMustExist: true })
    try {
      type Row = { integrity_check: string }
      const rows = db.pragma('integrity_check', { simple: false }) as Row[]
      // A row may hold several lines, under a heading that names the schema.
      const found = rows
        .flatMap((row) => row.integrity_check.split('\n'))
        .filter((line) => line !== '' && !line.startsWith('***'))
      if (found.join() !== 'ok') {
        const shown = found.slice(0, SHOWN_FAULTS).join('; ')
        throw fault('damaged', `integrity_check found faults, first: ${shown}`)
      }
      const orphans = db.pragma('foreign_key_check', { simple: false }) as unknown[]
      if (orphans.length > 0) {
        throw fault('damaged', `foreign_key_check: ${orphans.length} rows without their parent`)
      }
      const table = db
        .prepare("select 1 from sqlite_schema where type = 'table' and name = ?")
        .get(DEFAULT_MIGRATION_TABLE)
      if (table === undefined) {
        throw fault(
          'foreign',
          `no ${DEFAULT_MIGRATION_TABLE} table: not a database of this service`,
        )
      }
      const names = db
        .prepare(`select name from ${DEFAULT_MIGRATION_TABLE} order by name`)
        .pluck()
        .all() as string[]
      if (names.length === 0) {
        throw fault(
          'foreign',
          `${DEFAULT_MIGRATION_TABLE} is empty: not a database of this service`,
        )
      }
      const unknown = names.find((name) => !knownMigrations.includes(name))
      if (unknown !== undefined) {
        throw fault('newer', `migration ${unknown} is unknown to this release`)
      }
      return { migrations: names.length }
    } finally {
      db.close()
    }
  })
}

/** fsync: the file's bytes reach the disk before a rename makes them the file. */
export function syncFile(path: string): void {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Renames `from` to `to` in one step (same folder), then makes the rename itself durable. */
export function renameDurably(from: string, to: string): void {
  syncFile(from)
  renameSync(from, to)
  syncFile(dirname(to))
}

/**
 * Puts `from` at `to` only if nothing is there, in one step: a hard link fails with EEXIST
 * when `to` exists, however many backups race for it, where a check before a rename
 * would let the last one replace the others. `from` stays, for the caller to remove; the
 * link is made durable.
 */
export function linkDurablyUnlessExists(role: FileRole, from: string, to: string): void {
  syncFile(from)
  try {
    linkSync(from, to)
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EEXIST') throw error
    // The same refusal as a FILE found there at the start, word for word.
    throw new BackupFileError(role, to, 'exists', 'the file exists already')
  }
  syncFile(dirname(to))
}
