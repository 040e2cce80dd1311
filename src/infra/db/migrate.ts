import { type Kysely, type Migration, Migrator, sql } from 'kysely'
import { createIdempotencyKey } from '../idempotency/migrations/0003-create-idempotency-key.js'
import type { EngineTraits } from './engine/traits.js'
import type { DatabaseSchema } from './schema.js'

/** One schema version, built for the engine it runs on. */
export type MigrationFactory = (engine: EngineTraits) => Migration

/** Schema versions by name. Names sort in application order; never rename or edit one. */
export type Migrations = Readonly<Record<string, MigrationFactory>>

/** The tables of the service's own machinery (the Idempotency-Key outcomes). */
const SERVICE_MIGRATIONS: Migrations = {
  '0003-create-idempotency-key': createIdempotencyKey,
}

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
  return Object.fromEntries(all.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

function built(migrations: Migrations, engine: EngineTraits): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(migrations).map(([name, factory]) => [name, factory(engine)]),
  )
}

/**
 * Applies pending migrations, all in one transaction opened by the dialect's migration
 * lock (SQLite's write lock, a transaction-scoped advisory lock on PostgreSQL), so
 * instances starting together apply each migration exactly once.
 */
export async function migrateToLatest(
  db: Kysely<DatabaseSchema>,
  engine: EngineTraits,
  migrations: Migrations,
): Promise<void> {
  // Kysely looks for its own tables in every schema unless told which one is ours: a
  // second service (or test run) in another schema of the database would fool it.
  const schema =
    engine.kind === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]
          ?.schema
      : undefined
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => built(migrations, engine) },
    ...(schema && { migrationTableSchema: schema }),
    // The lock's own transaction holds the migrations (sqlite.ts, postgres.ts).
    disableTransactions: true,
    // Names start with their number (0001-…): plain order. Kysely's default compares by
    // locale, and building ICU's collator is a cost every start would pay for nothing.
    nameComparator: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  })
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed`, { cause: error })
  }
}
