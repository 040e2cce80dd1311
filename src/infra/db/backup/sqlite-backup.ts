import { closeSync, existsSync, openSync, rmSync, statSync } from 'node:fs'
import { loadSqliteDriver } from '../sqlite/sqlite-driver.js'
import {
  BackupFileError,
  checkServiceDatabase,
  concerning,
  type DatabaseCopied,
  linkDurablyUnlessExists,
} from './database-file.js'

/** How long the copy's read transaction waits, should another process be recovering the WAL. */
const BUSY_TIMEOUT_MS = 5000

/**
 * A consistent copy of the SQLite database `source` in `destination`, while the service
 * goes on writing to it: written beside `destination`, checked, then linked into place
 * unless a file is there by then (the early check only saves the copy's work).
 *
 * Why `VACUUM INTO` and not better-sqlite3's `backup()` (SQLite's online backup API),
 * tried on a large database while the service took a steady create load:
 * - `backup()` copies 100 pages per step and lets go of the database between steps; a
 *   write by another connection (the service is another process) restarts it from the
 *   first page. Under that load it did not finish.
 * - `backup()` made to copy every page in one step, and `VACUUM INTO`, each read one
 *   snapshot in one read transaction, which in WAL mode never holds up the service's
 *   writes. Either copy holds exactly what was committed when its read began.
 * `VACUUM INTO` writes only the live rows, so the bytes of a deleted member do not live on
 * in free pages of a backup; its file is smaller, and a file of its own in rollback
 * journal mode, with no `-wal` beside it. SQLite does not fsync it: linkDurablyUnlessExists
 * does.
 */
export async function backUpSqlite(
  source: string,
  destination: string,
  knownMigrations: readonly string[],
): Promise<DatabaseCopied> {
  const started = performance.now()
  if (existsSync(destination)) {
    throw new BackupFileError('backup', destination, 'exists', 'the file exists already')
  }
  concerning('database', source, () => statSync(source))
  const Sqlite = await loadSqliteDriver()
  const partial = `${destination}.${process.pid}.partial`
  // VACUUM INTO fills an empty file: made here, so that a folder missing or closed to us
  // is told apart from a refusal of the database.
  concerning('backup', destination, () => closeSync(openSync(partial, 'wx')))
  try {
    concerning('database', source, () => {
      const db = new Sqlite(source, { fileMustExist: true })
      try {
        db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
        db.prepare('vacuum into ?').run(partial)
      } finally {
        db.close()
      }
    })
    // A fault in the copy is a fault of what it was copied from.
    const checked = checkServiceDatabase(
      Sqlite,
      partial,
      { role: 'database', path: source },
      knownMigrations,
    )
    // Never over a file that appeared meanwhile (another backup to the same name).
    concerning('backup', destination, () => linkDurablyUnlessExists('backup', partial, destination))
    const bytes = statSync(destination).size
    return { ...checked, bytes, durationMs: performance.now() - started }
  } finally {
    rmSync(partial, { force: true })
  }
}
