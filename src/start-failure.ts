import type { Config } from './config/settings.js'
import { serviceUser } from './infra/db/sqlite/file-access.js'

/** What a failure carries that says why: Node's system errors, PostgreSQL's errors. */
interface Cause {
  readonly message: string
  readonly code?: unknown
  readonly syscall?: unknown
  readonly address?: unknown
  readonly port?: unknown
  readonly path?: unknown
}

/** The innermost error of a chain of `cause`s: the one that names what went wrong. */
function rootCause(error: unknown): Cause {
  let current = error
  while (current instanceof Error && current.cause instanceof Error) current = current.cause
  return current instanceof Error ? current : { message: String(current) }
}

/** The database setting in words, the password of a URL left out. */
export function databaseSetting(config: Config): string {
  const { database } = config
  if (database.kind === 'sqlite') return `DATABASE_URL (SQLite file ${database.file})`
  const url = new URL(database.url)
  url.password = ''
  return `DATABASE_URL (${url.toString()})`
}

/** What to do about a cause, by its code: PostgreSQL's SQLSTATE or Node's errno code. */
function fixFor(cause: Cause, config: Config): string {
  const code = String(cause.code ?? '')
  if (/unsupported startup parameter/i.test(cause.message)) {
    return 'a pooler in transaction mode (PgBouncer) refuses session settings at connect: set DB_POOLER=transaction.'
  }
  switch (code) {
    case 'ECONNREFUSED':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
      return 'start PostgreSQL there, or correct the host and port of DATABASE_URL.'
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'correct the host name of DATABASE_URL.'
    case '28P01':
    case '28000':
      return "correct the user or password of DATABASE_URL, or the server's pg_hba.conf."
    case 'SQLITE_BUSY':
      return 'another instance is migrating the database: start again once it is done (its log says so), or run node dist/server.js migrate with a longer DB_TIMEOUT.'
    case '3D000':
      return 'create the database (createdb), or correct its name in DATABASE_URL.'
    case 'EADDRINUSE':
      return `another process listens on ${config.host}:${config.port}: stop it, or set PORT.`
    case 'EACCES':
    case 'EPERM':
      return config.database.kind === 'sqlite' && cause.syscall !== 'listen'
        ? `give the service's user (${serviceUser()}) write access to ${typeof cause.path === 'string' ? cause.path : 'that folder'} (chown it, or mount a volume that user owns), or set DATABASE_URL=sqlite:PATH elsewhere.`
        : `the service may not listen on ${config.host}:${config.port}: set PORT above 1023.`
    case 'EEXIST':
    case 'ENOTDIR':
    case 'ENOENT':
      return 'a file stands where the SQLite folder must be: set DATABASE_URL=sqlite:PATH to a folder the service can create.'
    default:
      return 'see the cause above; docs/configuration.md lists every setting.'
  }
}

/** The setting a failure concerns: the listening address, or the database. */
function settingOf(cause: Cause, config: Config): string {
  if (cause.syscall === 'listen') return `HOST/PORT (${config.host}:${config.port})`
  return databaseSetting(config)
}

/**
 * One line for an operator whose service did not start: the setting concerned, the
 * cause in the words of the system that refused, and what to do. The whole error, with
 * its stack (mapped to the TypeScript sources), follows only at LOG_LEVEL=debug.
 */
export function describeStartFailure(error: unknown, config: Config): string {
  const cause = rootCause(error)
  const code = cause.code === undefined ? '' : ` [${String(cause.code)}]`
  return `Could not start: ${settingOf(cause, config)}: ${cause.message}${code}. Fix: ${fixFor(cause, config)}`
}

/** Prints the one line on standard error, and the whole error after it at LOG_LEVEL=debug. */
export function printStartFailure(error: unknown, config: Config): void {
  console.error(describeStartFailure(error, config))
  if (config.logLevel === 'debug' || config.logLevel === 'trace') console.error(error)
}
