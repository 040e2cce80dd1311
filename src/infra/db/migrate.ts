import { type Kysely, type Migration, Migrator, sql } from 'kysely'
import type { EngineTraits } from './engine/traits.js'
import { createTodo } from './migrations/0001-create-todo.js'
import { createMember } from './migrations/0002-create-member.js'
import { createIdempotencyKey } from './migrations/0003-create-idempotency-key.js'
import { memberSearchIndexes } from './migrations/0004-member-search-indexes.js'
import type { DatabaseSchema } from './schema.js'

/** Every schema version in order. Names sort in application order; never rename or edit one. */
function migrations(engine: EngineTraits): Record<string, Migration> {
  return {
    '0001-create-todo': createTodo(engine),
    '0002-create-member': createMember(engine),
    '0003-create-idempotency-key': createIdempotencyKey(engine),
    '0004-member-search-indexes': memberSearchIndexes(),
  }
}

/** The names of every migration this release knows, in order (a restore checks a backup's against them). */
export function migrationNames(engine: EngineTraits): string[] {
  return Object.keys(migrations(engine))
}

/**
 * Applies pending migrations, all in one transaction opened by the dialect's migration
 * lock (SQLite's write lock, a transaction-scoped advisory lock on PostgreSQL), so
 * instances starting together apply each migration exactly once.
 */
export async function migrateToLatest(
  db: Kysely<DatabaseSchema>,
  engine: EngineTraits,
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
    provider: { getMigrations: async () => migrations(engine) },
    ...(schema && { migrationTableSchema: schema }),
    // The lock's own transaction holds the migrations (sqlite.ts, postgres.ts).
    disableTransactions: true,
    // Names start with their number (0001-…): plain order. Kysely's default compares by
    // locale, and building ICU's collator costs every start about 10 ms.
    nameComparator: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  })
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed`, { cause: error })
  }
}
