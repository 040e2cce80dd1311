import type { Config } from './config/settings.js'
import { BackupFileError } from './infra/db/backup/database-file.js'
import { backUpSqlite } from './infra/db/backup/sqlite-backup.js'
import { restoreSqlite } from './infra/db/backup/sqlite-restore.js'
import { migrate } from './migrate-command.js'
import { MIGRATIONS } from './resources/index.js'
import { databaseSetting } from './start-failure.js'

/** A restored backup may name only these; a newer release's is refused. */
const KNOWN_MIGRATIONS = Object.keys(MIGRATIONS)

/**
 * `node dist/server.js backup FILE` and `restore FILE`: the built server's own commands,
 * so that wherever the service runs (a container holding node and the build) its backup
 * runs too, with the same settings (DATABASE_URL unset: the default SQLite file). Each
 * prints one line: what it wrote, or why it did not and what to do, and exits 0 or 1.
 * PostgreSQL has its own tools (docs/operations/databases.md#backup-and-restore). `migrate`, on
 * either database, is migrate-command.ts's.
 */

export type CommandName = 'migrate' | FileCommandName

/** The commands that copy a SQLite file, named by their one argument. */
type FileCommandName = 'backup' | 'restore'

export interface Command {
  readonly name: CommandName
  readonly args: readonly string[]
}

export const COMMANDS_HELP = `Commands, with the service's settings (each prints one line and exits 0 or 1):
  node dist/server.js migrate        applies the migrations the database lacks, as a start does, and serves nothing
On the SQLite database (PostgreSQL: pg_dump and pg_restore, docs/operations/databases.md#backup-and-restore):
  node dist/server.js backup FILE    writes a consistent copy of the database to FILE while the service runs
  node dist/server.js restore FILE   replaces the database with the backup FILE; stop the service first`

const USAGE =
  'node dist/server.js migrate, node dist/server.js backup FILE, node dist/server.js restore FILE'

/** The command the arguments name; undefined: none, serve. A word that names none is an error. */
export function commandOf(args: readonly string[]): Command | string | undefined {
  const [first, ...rest] = args
  if (first === undefined || first.startsWith('-')) return undefined
  if (first === 'migrate' || first === 'backup' || first === 'restore') {
    return { name: first, args: rest }
  }
  return `Unknown command "${first}". Use: ${USAGE}; or no argument, to serve.`
}

const VERBS: Record<FileCommandName, string> = { backup: 'back up', restore: 'restore' }
const FROM_BACKUP = 'name a file written by "node dist/server.js backup".'
const AS_SERVICE_USER =
  "run the command as the service's user, who can read the database and write its folder and the backup's."
const EARLIER_BACKUP = 'restore an earlier backup.'
const DAMAGED_DATABASE =
  'its copy is damaged, so the database may be: stop the service, run PRAGMA integrity_check on it, and restore the last good backup if that fails.'
const WITH_SERVICE_SETTINGS =
  "DATABASE_URL must name the service's SQLite file: run the command with the service's settings, in its working folder."

/** What to do about a failure, by what it concerns and what went wrong. */
function fixFor(error: BackupFileError, command: FileCommandName): string {
  const ofBackup = error.role === 'backup'
  switch (error.problem) {
    case 'in-use':
      return 'stop the service (every process on this file), restore, then start it.'
    case 'exists':
      return 'name a new file, or remove that one first.'
    case 'foreign':
      return ofBackup ? FROM_BACKUP : WITH_SERVICE_SETTINGS
    case 'newer':
      return ofBackup
        ? 'restore it with the release that wrote it, or a later one.'
        : 'run the command of the release that serves this database.'
    case 'damaged':
      return ofBackup ? EARLIER_BACKUP : DAMAGED_DATABASE
    case 'refused':
      break
  }
  switch (error.code) {
    case 'ENOENT':
      if (!ofBackup) return WITH_SERVICE_SETTINGS
      return command === 'backup' ? 'create that folder first.' : 'name an existing backup file.'
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_READONLY':
      return AS_SERVICE_USER
    case 'ENOSPC':
    case 'SQLITE_FULL':
      return 'free disk space there, or write elsewhere.'
    case 'SQLITE_NOTADB':
      return ofBackup ? FROM_BACKUP : WITH_SERVICE_SETTINGS
    case 'SQLITE_CORRUPT':
      return ofBackup ? EARLIER_BACKUP : DAMAGED_DATABASE
    default:
      return 'see the cause above; docs/operations/databases.md#backup-and-restore shows the procedure.'
  }
}

/** One line for the operator: what could not be done, to which file, why, and the fix. */
export function describeCommandFailure(
  error: BackupFileError,
  command: FileCommandName,
  config: Config,
): string {
  const subject = error.role === 'database' ? databaseSetting(config) : `backup ${error.path}`
  const code = error.code === undefined ? '' : ` [${error.code}]`
  return `Could not ${VERBS[command]}: ${subject}: ${error.message}${code}. Fix: ${fixFor(error, command)}`
}

/** Runs the command and prints its one line; resolves to the exit code. */
export async function runCommand({ name, args }: Command, config: Config): Promise<number> {
  if (name === 'migrate') {
    if (args.length === 0) return migrate(config)
    console.error(`migrate takes no argument. Use: ${USAGE}.`)
    return 1
  }
  const [file, ...extra] = args
  if (file === undefined || file === '' || extra.length > 0) {
    console.error(`${name} takes one file. Use: ${USAGE}.`)
    return 1
  }
  const { database } = config
  if (database.kind !== 'sqlite') {
    console.error(
      `Could not ${VERBS[name]}: ${databaseSetting(config)}: this command copies SQLite files only. Fix: use pg_dump and pg_restore, as docs/operations/databases.md#backup-and-restore shows.`,
    )
    return 1
  }
  try {
    if (name === 'backup') {
      const written = await backUpSqlite(database.file, file, KNOWN_MIGRATIONS)
      const ms = Math.round(written.durationMs)
      console.log(
        `Backed up ${database.file} to ${file}: ${written.bytes} bytes in ${ms} ms, integrity_check ok.`,
      )
    } else {
      const restored = await restoreSqlite(file, database.file, KNOWN_MIGRATIONS)
      const ms = Math.round(restored.durationMs)
      const known = KNOWN_MIGRATIONS.length
      console.log(
        `Restored ${database.file} from ${file}: ${restored.bytes} bytes in ${ms} ms, integrity_check ok, migrations ${restored.migrations} of ${known}.`,
      )
    }
    return 0
  } catch (error) {
    if (!(error instanceof BackupFileError)) throw error
    console.error(describeCommandFailure(error, name, config))
    if (config.logLevel === 'debug' || config.logLevel === 'trace') console.error(error)
    return 1
  }
}
