/**
 * The schema's history, and the rule every migration follows so that a rolling upgrade
 * works: for a while, instances of the release before keep running beside the new
 * release's, on the schema the new one migrated (docs/operations/lifecycle.md#upgrades).
 *
 * Expand, then contract. A release only adds: tables, nullable columns or columns with
 * a default, indexes. It never drops, renames or retypes a table or column that the
 * release before reads or writes, never makes one NOT NULL or drops its default, and
 * adds no constraint or unique index that rows the release before writes could break.
 * Taking something away is a contract step, one release after the release that stopped
 * using it, once no instance older than that runs: its migration says so (`contracts`,
 * naming the migration of the expand). An index may be dropped in any release, unless
 * it is unique: the release before runs every query without it, only slower, where a
 * unique index is a rule its writes rely on. test/rules/migration-rule.test.ts checks
 * every migration's statements; test/storage/rolling-upgrade.test.ts runs a release's
 * queries on a schema a later release expanded.
 *
 * Never rename or remove a migration once released, nor change what it makes: its name
 * in the history is how a database says what it has been through.
 */
import type { Kysely, Migration } from 'kysely'
import { createIdempotencyKey } from '../idempotency/migrations/0003-create-idempotency-key.js'
import type { MigrationLock, MigrationSession } from './engine/migration-lock.js'
import type { EngineTraits } from './engine/traits.js'
import type { DatabaseSchema } from './schema.js'

/** One schema version as it runs: Kysely's migration and what this service's runner reads. */
export interface ServiceMigration extends Migration {
  /**
   * Runs outside a transaction on PostgreSQL (CREATE INDEX CONCURRENTLY cannot run in
   * one). Such a migration must finish what an interrupted run of it left, since nothing
   * rolls that back. SQLite runs it in its lock's transaction like any other.
   */
  readonly outsideTransaction?: true
  /** The contract step of the expand that this names: it may take away (see above). */
  readonly contracts?: string
}

/** One schema version, built for the engine it runs on. */
export type MigrationFactory = (engine: EngineTraits) => ServiceMigration

/** Schema versions by name. Names sort in application order; never rename or edit one. */
export type Migrations = Readonly<Record<string, MigrationFactory>>

/** The tables of the service's own machinery (the Idempotency-Key outcomes). */
const SERVICE_MIGRATIONS: Migrations = {
  '0003-create-idempotency-key': createIdempotencyKey,
}

/** Names start with their number (0001-…): plain order, not the locale's. */
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Every schema version: the service's own and each resource's, in name order. Two with
 * one number are refused: a name's number is its place in the whole service's history.
 */
export function migrationsOf(
  resources: readonly { readonly migrations: Migrations }[],
): Migrations {
  const all = [SERVICE_MIGRATIONS, ...resources.map((resource) => resource.migrations)].flatMap(
    (migrations) => Object.entries(migrations),
  )
  const numbers = new Set<string>()
  for (const [name] of all) {
    const number = name.split('-', 1)[0] as string
    if (numbers.has(number)) throw new Error(`Two migrations are numbered ${number}`)
    numbers.add(number)
  }
  return Object.fromEntries(all.sort(([a], [b]) => byName(a, b)))
}

/**
 * The history's tables, as Kysely's Migrator made them before this runner (databases of
 * earlier releases have them): the names applied, and a lock table it no longer uses but
 * an instance of the release before still expects.
 */
type History = {
  kysely_migration: { name: string; timestamp: string }
  kysely_migration_lock: { id: string; is_locked: number }
}

/** The service's tables and the history's: what the migrations' connection sees. */
type Migrating = Kysely<DatabaseSchema & History>

async function ensureHistory(db: Migrating): Promise<void> {
  await db.schema
    .createTable('kysely_migration')
    .ifNotExists()
    .addColumn('name', 'varchar(255)', (column) => column.notNull().primaryKey())
    .addColumn('timestamp', 'varchar(255)', (column) => column.notNull())
    .execute()
  await db.schema
    .createTable('kysely_migration_lock')
    .ifNotExists()
    .addColumn('id', 'varchar(255)', (column) => column.notNull().primaryKey())
    .addColumn('is_locked', 'integer', (column) => column.notNull().defaultTo(0))
    .execute()
  const row = await db
    .selectFrom('kysely_migration_lock')
    .select('id')
    .where('id', '=', 'migration_lock')
    .executeTakeFirst()
  if (!row) {
    await db
      .insertInto('kysely_migration_lock')
      .values({ id: 'migration_lock', is_locked: 0 })
      .execute()
  }
}

/** What a run found and did: the names it applied, and those of a newer release it found. */
export interface MigrationOutcome {
  readonly applied: readonly string[]
  /**
   * Migrations in the history that this release does not know: a newer release applied
   * them, and this one serves on its schema, as the rule above lets the release before do
   * during a rolling upgrade (an instance restarted, a rollback of the deployment).
   */
  readonly newer: readonly string[]
}

/**
 * The migrations to apply, in order, and the newer release's that the history names. A
 * release runs on a newer schema only once it has every migration of its own: one that
 * lacks one of its own migrations while a newer release applied others, or lacks one
 * older than one it has, is refused before anything is applied.
 */
function planOf(
  migrations: Migrations,
  applied: readonly string[],
): { pending: string[]; newer: string[] } {
  const newer = applied.filter((name) => !Object.hasOwn(migrations, name)).sort(byName)
  const pending = Object.keys(migrations)
    .filter((name) => !applied.includes(name))
    .sort(byName)
  if (newer.length > 0 && pending.length > 0) {
    throw new Error(
      `the database has migration ${newer.join(', ')} of a newer release, but not ${pending.join(', ')} of this one: run the newer release, or restore a backup taken before the upgrade`,
    )
  }
  const last = [...applied].sort(byName).at(-1)
  const skipped = pending.find((name) => last !== undefined && name < last)
  if (skipped !== undefined) {
    throw new Error(`migration ${skipped} was never applied, but ${last}, a later one, was`)
  }
  return { pending, newer }
}

/** A migration, or the run of them, failed; its cause says why (start-failure.ts reads it). */
class MigrationError extends Error {}

async function applyPending(
  session: MigrationSession<DatabaseSchema>,
  engine: EngineTraits,
  migrations: Migrations,
): Promise<MigrationOutcome> {
  const db = session.db.withTables<History>()
  await ensureHistory(db)
  const history = (await db.selectFrom('kysely_migration').select('name').execute()).map(
    (row) => row.name,
  )
  const { pending, newer } = planOf(migrations, history)
  for (const name of pending) {
    const migration = (migrations[name] as MigrationFactory)(engine)
    const apply = async (on: Migrating) => {
      session.stillHeld()
      await migration.up(on)
      // Checked again before the record: a build outside a transaction may take minutes.
      session.stillHeld()
      await on
        .insertInto('kysely_migration')
        .values({ name, timestamp: new Date().toISOString() })
        .execute()
    }
    try {
      if (session.inOneTransaction || migration.outsideTransaction) await apply(db)
      else await db.transaction().execute(apply)
    } catch (error) {
      throw new MigrationError(`Database migration ${name} failed`, { cause: error })
    }
  }
  return { applied: pending, newer }
}

/**
 * The outcome without the lock, when the history already has every migration of this
 * release: instances of a fleet then start at once, and none waits for the lock that
 * another holds (on PostgreSQL for as long as it migrates). Anything else, a database
 * with no history yet included, is decided under the lock.
 */
async function alreadyMigrated(
  db: Kysely<DatabaseSchema>,
  migrations: Migrations,
): Promise<MigrationOutcome | undefined> {
  try {
    const rows = await db
      .withTables<History>()
      .selectFrom('kysely_migration')
      .select('name')
      .execute()
    const { pending, newer } = planOf(
      migrations,
      rows.map((row) => row.name),
    )
    return pending.length === 0 ? { applied: [], newer } : undefined
  } catch {
    // No history yet, or one to refuse: the run under the lock says which, in its words.
    return undefined
  }
}

/**
 * Applies the pending migrations in name order while holding the engine's migration
 * lock, so that instances starting together apply each one exactly once. On PostgreSQL
 * each runs in a transaction of its own together with its line in the history, or, when
 * it says so, outside any (migration-lock.ts); on SQLite all run in the lock's one
 * transaction (sqlite.ts).
 */
export async function migrateToLatest(
  db: Kysely<DatabaseSchema>,
  engine: EngineTraits,
  migrations: Migrations,
  lock: MigrationLock,
): Promise<MigrationOutcome> {
  const done = await alreadyMigrated(db, migrations)
  if (done) return done
  try {
    return await lock.hold(db, (session) => applyPending(session, engine, migrations))
  } catch (error) {
    // Raised here, so that its stack names this file whatever failed (connecting, the lock).
    if (error instanceof MigrationError) throw error
    throw new MigrationError('The database could not be migrated', { cause: error })
  }
}
