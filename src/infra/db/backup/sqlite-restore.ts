import { constants, copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import type SqliteDatabase from 'better-sqlite3'
import { loadSqliteDriver } from '../sqlite/sqlite-driver.js'
import {
  BackupFileError,
  checkServiceDatabase,
  concerning,
  type DatabaseCopied,
  renameDurably,
} from './database-file.js'

/** What SQLite keeps beside a database file: the old database's, never the backup's. */
const COMPANIONS = ['-wal', '-shm', '-journal']

/**
 * Refuses while any process has the database open. In WAL mode every connection holds a
 * shared lock on the file from the moment it reads until it closes, idle or not (the
 * service's and each of its reader threads'); a connection in exclusive locking mode
 * needs an exclusive lock to begin, so it is refused at once (SQLITE_BUSY) while any
 * other holds one. When it is granted, nobody had the file open; closing it then folds a
 * WAL left by a killed process into the old file, which the restore replaces anyway.
 * A file that is no database at all is held by no service: it may be replaced.
 */
function refuseIfInUse(Sqlite: typeof SqliteDatabase, target: string): void {
  if (!existsSync(target)) return
  concerning('database', target, () => {
    const db = new Sqlite(target, { fileMustExist: true })
    try {
      db.pragma('busy_timeout = 0')
      db.pragma('locking_mode = EXCLUSIVE')
      db.exec('begin exclusive')
      db.exec('commit')
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String(error.code) : ''
      if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
        const message = 'a running service has it open (database is locked)'
        throw new BackupFileError('database', target, 'in-use', message, error)
      }
      if (code !== 'SQLITE_NOTADB' && code !== 'SQLITE_CORRUPT') throw error
    } finally {
      db.close()
    }
  })
}

/**
 * Replaces the SQLite database `target` with the backup `backup`, which must be a sound
 * database of this service (or of an earlier release: the service migrates it at start).
 * The service must be stopped: a database any process has open is refused. The backup is
 * copied beside `target` and checked there; the old database's `-wal` and `-shm` are
 * removed (their pages would be read into the new file); then one rename puts it in place.
 * Nothing of the old database changes before that rename. The service must not be
 * started until this has returned.
 */
export async function restoreSqlite(
  backup: string,
  target: string,
  knownMigrations: readonly string[],
): Promise<DatabaseCopied> {
  const started = performance.now()
  const { size: bytes } = concerning('backup', backup, () => statSync(backup))
  const Sqlite = await loadSqliteDriver()
  refuseIfInUse(Sqlite, target)
  const copy = `${target}.${process.pid}.restoring`
  concerning('database', target, () => mkdirSync(dirname(target), { recursive: true }))
  concerning('backup', backup, () => copyFileSync(backup, copy, constants.COPYFILE_EXCL))
  try {
    const about = { role: 'backup', path: backup } as const
    const checked = checkServiceDatabase(Sqlite, copy, about, knownMigrations)
    // Again, just before the swap: a service started meanwhile is still refused.
    refuseIfInUse(Sqlite, target)
    concerning('database', target, () => {
      for (const suffix of COMPANIONS) rmSync(`${target}${suffix}`, { force: true })
      renameDurably(copy, target)
    })
    return { ...checked, bytes, durationMs: performance.now() - started }
  } finally {
    for (const suffix of ['', ...COMPANIONS]) rmSync(`${copy}${suffix}`, { force: true })
  }
}
