import { accessSync, constants, existsSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

/**
 * Why the service's user cannot use a SQLite file, in a system error's shape (`code`,
 * `path`) so that the start's one line names it: SQLite itself says only "unable to open
 * database file" or "attempt to write a readonly database", which names no path, no user
 * and no permission.
 */
export class SqliteAccessError extends Error {
  readonly code = 'EACCES'
  readonly syscall = 'open'

  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message)
  }
}

/** The process's user, as `ls -n` and `chown` name users. */
export function serviceUser(): string {
  const uid = process.getuid?.()
  return uid === undefined ? 'the service’s user' : `uid ${uid}, gid ${process.getgid?.()}`
}

function ownerOf(path: string): string {
  const stats = statSync(path)
  return `owner ${stats.uid}:${stats.gid}, mode ${(stats.mode & 0o777).toString(8)}`
}

function refused(path: string, mode: number): boolean {
  try {
    accessSync(path, mode)
    return false
  } catch {
    return true
  }
}

/**
 * What the service's user may not do with the database file or its folder, or undefined
 * when both allow it (the failure is then SQLite's own). In WAL mode SQLite creates the
 * -wal and -shm files beside the database, so the folder must be writable as well as the file.
 */
export function sqliteAccessProblem(file: string, failure: Error): SqliteAccessError | undefined {
  const folder = resolve(dirname(file))
  const said = `${failure.message}: `
  if (refused(folder, constants.W_OK | constants.X_OK)) {
    return new SqliteAccessError(
      folder,
      `${said}the folder ${folder} (${ownerOf(folder)}) is not writable by the service's user (${serviceUser()})`,
    )
  }
  const path = resolve(file)
  if (existsSync(path) && refused(path, constants.R_OK | constants.W_OK)) {
    return new SqliteAccessError(
      path,
      `${said}the file ${path} (${ownerOf(path)}) is not readable and writable by the service's user (${serviceUser()})`,
    )
  }
  return undefined
}
