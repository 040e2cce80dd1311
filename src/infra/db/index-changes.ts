import { type Kysely, sql } from 'kysely'
import type { EngineTraits } from './engine/traits.js'
import type { ServiceMigration } from './migrate.js'

/** Indexes a migration builds on one table, and those it drops (replaced by them). */
export interface IndexChanges {
  readonly table: string
  readonly create: readonly { readonly name: string; readonly columns: readonly string[] }[]
  readonly drop: readonly string[]
}

/**
 * The migration that makes `changes`. On PostgreSQL the indexes are built and dropped
 * CONCURRENTLY, outside a transaction, so that writes to the table go on during a build
 * that takes minutes on a big table; a plain CREATE INDEX would hold off every write
 * until it ends. On SQLite they are made in the migrations' transaction: SQLite has one
 * writer at a time whatever the statement.
 */
export function indexChanges(engine: EngineTraits, changes: IndexChanges): ServiceMigration {
  return engine.kind === 'postgres'
    ? indexChangesConcurrently(changes)
    : indexChangesInTransaction(changes)
}

/**
 * CREATE and DROP INDEX in the migration's transaction, the drops first. On PostgreSQL
 * this is how the service built indexes before, which the benchmark and the tests of
 * index-changes compare with: every write to the table waits for the whole build.
 */
export function indexChangesInTransaction(changes: IndexChanges): ServiceMigration {
  return {
    async up(db: Kysely<unknown>) {
      for (const name of changes.drop) await db.schema.dropIndex(name).execute()
      for (const { name, columns } of changes.create) {
        await db.schema
          .createIndex(name)
          .on(changes.table)
          .columns([...columns])
          .execute()
      }
    },
  }
}

/**
 * PostgreSQL's builds that let writes go on: first the new indexes, so that reads keep an
 * index throughout, then the drops. Every statement names its schema: behind a
 * transaction pooler a statement outside a transaction gets no search_path.
 *
 * A build that fails or is interrupted (the instance stopped, the connection lost)
 * leaves its index INVALID: in the catalogue, maintained by writes, never used by reads.
 * Nothing rolls it back, so the next run drops and builds it again, where IF NOT EXISTS
 * would take it for built. A valid one is a build that finished before the interruption.
 */
function indexChangesConcurrently(changes: IndexChanges): ServiceMigration {
  return {
    outsideTransaction: true,
    async up(db: Kysely<unknown>) {
      const schema = await currentSchema(db)
      const table = sql.id(schema, changes.table)
      // An empty table (a new database, whose migrations just made it) has no writes to
      // let through, and a concurrent build would wait for every older transaction of the
      // whole database: its plain build takes a moment and waits for nobody.
      const { rows } = await sql<{
        any: boolean
      }>`select exists (select 1 from ${table}) as any`.execute(db)
      if (rows[0]?.any !== true) return indexChangesInTransaction(changes).up(db)
      for (const { name, columns } of changes.create) {
        const valid = await validity(db, schema, name)
        if (valid === true) continue
        if (valid === false) await sql`drop index concurrently ${sql.id(schema, name)}`.execute(db)
        const list = sql.join(columns.map((column) => sql.id(column)))
        await sql`create index concurrently ${sql.id(name)} on ${table} (${list})`.execute(db)
      }
      for (const name of changes.drop) {
        await sql`drop index concurrently if exists ${sql.id(schema, name)}`.execute(db)
      }
    },
  }
}

async function currentSchema(db: Kysely<unknown>): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db)
  const schema = rows[0]?.schema
  if (schema === undefined) throw new Error('No current schema: search_path names none that exists')
  return schema
}

/** Whether the index is valid, invalid (a build that did not finish), or undefined: absent. */
async function validity(
  db: Kysely<unknown>,
  schema: string,
  index: string,
): Promise<boolean | undefined> {
  const { rows } = await sql<{ valid: boolean }>`
    select i.indisvalid as valid
    from pg_index i
    join pg_class c on c.oid = i.indexrelid
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relname = ${index}`.execute(db)
  return rows[0]?.valid
}
