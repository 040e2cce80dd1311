import type { Config } from './config/settings.js'
import { createDatabase, type ExecutedQuery } from './infra/db/create-database.js'
import { MIGRATIONS } from './resources/index.js'
import { databaseSetting, describeStartFailure } from './start-failure.js'

/**
 * `node dist/server.js migrate`: brings the database to this release's schema and exits,
 * serving nothing, so that a migration of any length runs where no probe or start-up
 * deadline watches it (deploy/kubernetes.yaml runs it as an init container). It opens the
 * database exactly as a start does (createDatabase, whose migration runner takes the
 * migration lock: instances running it together apply each migration once), so a start
 * after it finds nothing left to apply; and it fails in a start's words.
 */

/**
 * The statement that records one applied migration in Kysely's table, in the migration's
 * transaction: the names this process applied, not those another instance applied while
 * this one waited for the lock. (A failed one fails the whole run, which then says so.)
 */
const RECORDS_MIGRATION = /^insert into (?:"[^"]+"\.)?"kysely_migration" /i

/** Runs the pending migrations and prints one line; resolves to the exit code. */
export async function migrate(config: Config): Promise<number> {
  const applied: string[] = []
  const recordApplied = ({ sql, parameters }: ExecutedQuery) => {
    if (RECORDS_MIGRATION.test(sql)) applied.push(String(parameters[0]))
  }
  const started = performance.now()
  // Only the primary is migrated: a read replica that is down must not hold a release back.
  const { database: target } = config
  const primary = target.kind === 'postgres' ? { ...target, readUrl: undefined } : target
  try {
    const database = await createDatabase(primary, {
      migrations: MIGRATIONS,
      timeoutMs: config.databaseTimeoutMs,
      reads: { connections: 1, timeoutMs: config.readTimeoutMs },
      onQuery: recordApplied,
    })
    await database.close()
  } catch (error) {
    console.error(describeStartFailure(error, config))
    if (config.logLevel === 'debug' || config.logLevel === 'trace') console.error(error)
    return 1
  }
  const ms = Math.round(performance.now() - started)
  const total = Object.keys(MIGRATIONS).length
  const what = applied.length === 0 ? 'none pending' : `applied ${applied.join(', ')}`
  console.log(
    `Migrated ${databaseSetting(config)}: ${what} in ${ms} ms; migrations ${total} of ${total}.`,
  )
  return 0
}
