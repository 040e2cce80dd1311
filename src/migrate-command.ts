import type { Config } from './config/settings.js'
import { createDatabase } from './infra/db/create-database.js'
import type { MigrationOutcome } from './infra/db/migrate.js'
import { MIGRATIONS } from './resources/index.js'
import { databaseSetting, printStartFailure } from './start-failure.js'

/**
 * `node dist/server.js migrate`: brings the database to this release's schema and exits,
 * serving nothing, so that a migration of any length runs where no probe or start-up
 * deadline watches it (deploy/kubernetes.yaml runs it as an init container). It opens the
 * database exactly as a start does (createDatabase, whose migration runner takes the
 * migration lock: instances running it together apply each migration once), so a start
 * after it finds nothing left to apply; and it fails in a start's words.
 */

/** Runs the pending migrations and prints one line; resolves to the exit code. */
export async function migrate(config: Config): Promise<number> {
  const started = performance.now()
  let migrated: MigrationOutcome
  // Only the primary is migrated: a read replica that is down must not hold a release back.
  const { database: target } = config
  const primary = target.kind === 'postgres' ? { ...target, readUrl: undefined } : target
  try {
    const database = await createDatabase(primary, {
      migrations: MIGRATIONS,
      timeoutMs: config.databaseTimeoutMs,
      reads: { connections: 1, timeoutMs: config.readTimeoutMs },
    })
    // The names this process applied, not those another applied while it waited its turn.
    migrated = database.migrated
    await database.close()
  } catch (error) {
    printStartFailure(error, config)
    return 1
  }
  const ms = Math.round(performance.now() - started)
  const total = Object.keys(MIGRATIONS).length
  const { applied, newer } = migrated
  const what = applied.length === 0 ? 'none pending' : `applied ${applied.join(', ')}`
  const ahead = newer.length === 0 ? '' : `; the database is ahead, with ${newer.join(', ')}`
  console.log(
    `Migrated ${databaseSetting(config)}: ${what} in ${ms} ms; migrations ${total} of ${total}${ahead}.`,
  )
  return 0
}
