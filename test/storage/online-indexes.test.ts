import { afterEach, describe, expect, it } from 'vitest'
import {
  BUILDS,
  describeMeasurement,
  loadBeforeSearchIndexes,
  measureMigrationUnderWrites,
} from '../../bench/migration-under-writes.js'
import { createDatabase } from '../../src/infra/db/create-database.js'
import type { Migrations } from '../../src/infra/db/migrate.js'
import {
  type DatabaseTarget,
  type IsolatedDatabase,
  POSTGRES_TARGET,
  SQLITE_TARGET,
} from '../helpers/databases.js'
import { pause } from '../helpers/time.js'

/**
 * Migration 0004 builds seven indexes on member and drops two. On PostgreSQL it builds
 * them CONCURRENTLY, outside a transaction, so that writes go on during a build that
 * takes minutes on a big table (src/infra/db/index-changes.ts); the same measurement at
 * a million members is bench/migration-under-writes.ts.
 */

/** Enough members that the builds take far longer than a write (about a second here). */
const MEMBERS = 200_000
const WRITERS = 2
const LONG_TEST = { timeout: 120_000 }
const SEARCH_INDEXES = '0004-member-search-indexes'

let isolated: IsolatedDatabase | undefined
afterEach(async () => {
  await isolated?.drop()
  isolated = undefined
})

async function migrateWhileWriting(migrations: Migrations) {
  isolated = await POSTGRES_TARGET.create()
  const result = await measureMigrationUnderWrites({
    config: isolated.config,
    directUrl: isolated.directUrl as string,
    members: MEMBERS,
    writers: WRITERS,
    migrations,
  })
  console.log(describeMeasurement(`0004 at ${MEMBERS} members`, result))
  return result
}

/** Each index of member with its definition, the schema's name left out. */
async function memberIndexes(database: IsolatedDatabase): Promise<Record<string, string>> {
  const rows =
    database.config.kind === 'postgres'
      ? await database.query<{ name: string; definition: string }>(
          `select indexname as name, replace(indexdef, current_schema() || '.', '') as definition
           from pg_indexes where schemaname = current_schema() and tablename = 'member'`,
        )
      : await database.query<{ name: string; definition: string | null }>(
          `select name, sql as definition from sqlite_master where type = 'index' and tbl_name = 'member'`,
        )
  return Object.fromEntries(rows.map(({ name, definition }) => [name, definition ?? '(automatic)']))
}

/** The indexes 0004 made when it ran in the migrations' transaction, on a database of its own. */
async function referenceIndexes(target: DatabaseTarget): Promise<Record<string, string>> {
  const reference = await target.create()
  try {
    await (await createDatabase(reference.config, { migrations: BUILDS.blocking })).close()
    return await memberIndexes(reference)
  } finally {
    await reference.drop()
  }
}

/** A fresh schema of migrations 0001-0003 holding MEMBERS generated members. */
async function membersBeforeSearchIndexes() {
  const database = await POSTGRES_TARGET.create()
  isolated = database
  await loadBeforeSearchIndexes(database.directUrl as string, MEMBERS)
  const [row] = await database.query<{ schema: string }>('select current_schema() as schema')
  return { database, schema: String(row?.schema) }
}

/** The indexes of the schema, by name (a query to add conditions to). */
const INDEXES_OF_SCHEMA = `select c.relname as name from pg_index i
  join pg_class c on c.oid = i.indexrelid
  where c.relnamespace = current_schema()::regnamespace`

/** An instance opening the database with the concurrent build, and whether it has settled. */
function startMigrating(database: IsolatedDatabase) {
  let done = false
  const opening = createDatabase(database.config, { migrations: BUILDS.concurrent })
  const settle = () => {
    done = true
  }
  opening.then(settle, settle)
  return { opening, settled: () => done }
}

/**
 * Looks, a bounded number of times, for the instance's own backend building an index on
 * member in `schema` (not a parallel worker of the build, which shows the same
 * statement), until it finds one or the migration has settled; `select`s it, `pid` or
 * `pg_cancel_backend(pid)`, and says how many it found. Between two builds there is none.
 * Only a build past its first phase, whose index is in the catalogue, already committed:
 * cancelled earlier, a build leaves nothing.
 */
async function lookWhileBuilding(
  database: IsolatedDatabase,
  schema: string,
  settled: () => boolean,
  select: 'pid' | 'pg_cancel_backend(pid)',
): Promise<number> {
  for (let look = 0; look < 2000 && !settled(); look += 1) {
    const rows = await database.query<{ found: unknown }>(
      `select ${select} as found from pg_stat_activity
       join pg_stat_progress_create_index using (pid)
       where backend_type = 'client backend' and phase like 'building index%'
         and query like '%"${schema}"."member"%'`,
    )
    const found = rows.filter((row) => row.found !== false).length
    if (found > 0) return found
    await pause(5)
  }
  return 0
}

describe.skipIf(!POSTGRES_TARGET.available)('migration 0004 on postgres, under writes', () => {
  it('lets writes go on while its indexes build: none waits for the build', LONG_TEST, async () => {
    const { buildMs, during, before } = await migrateWhileWriting(BUILDS.concurrent)
    // Writes were sent and answered throughout the build, not queued behind it.
    expect(during.completedInside).toBeGreaterThan(50)
    expect(during.maxMs).toBeLessThan(buildMs / 4)
    expect(before.writes).toBeGreaterThan(0)
  })

  it(
    'the same build in the migrations transaction, as before, holds every write off',
    LONG_TEST,
    async () => {
      // What the first test would see on the old code: a write waits for most of the build.
      const { buildMs, during } = await migrateWhileWriting(BUILDS.blocking)
      expect(during.maxMs).toBeGreaterThan(buildMs / 2)
    },
  )

  it(
    'an instance starting during the build waits its turn; each migration is applied once',
    LONG_TEST,
    async () => {
      const { database, schema } = await membersBeforeSearchIndexes()
      const { opening: first, settled } = startMigrating(database)
      expect(await lookWhileBuilding(database, schema, settled, 'pid')).toBe(1)
      // A build waits for every transaction with an older snapshot: a second instance
      // that waited for the lock inside a statement would hold one until the build ends.
      const second = createDatabase(database.config, { migrations: BUILDS.concurrent })
      const opened = await Promise.race([
        Promise.all([first, second]),
        pause(60_000).then(() => Promise.reject(new Error('the two instances deadlocked'))),
      ])
      await Promise.all(opened.map((each) => each.close()))
      const applied = await database.query<{ name: string }>('select name from kysely_migration')
      expect(applied.map(({ name }) => name).sort()).toEqual(Object.keys(BUILDS.concurrent))
    },
  )

  it(
    'a build cancelled midway leaves an invalid index, which the next start drops and builds again',
    LONG_TEST,
    async () => {
      const { database, schema } = await membersBeforeSearchIndexes()
      const { opening: migrating, settled } = startMigrating(database)
      // As a statement timeout, an operator or a server restart would.
      const cancelled = await lookWhileBuilding(database, schema, settled, 'pg_cancel_backend(pid)')
      expect(cancelled).toBe(1)
      await expect(migrating).rejects.toThrow(`Database migration ${SEARCH_INDEXES} failed`)
      const invalid = await database.query(`${INDEXES_OF_SCHEMA} and not i.indisvalid`)
      expect(invalid).toHaveLength(1)
      const applied = await database.query('select name from kysely_migration')
      expect(applied.map((row) => row.name)).not.toContain(SEARCH_INDEXES)

      await (await createDatabase(database.config, { migrations: BUILDS.concurrent })).close()
      expect(await database.query(`${INDEXES_OF_SCHEMA} and not i.indisvalid`)).toEqual([])
      expect(await memberIndexes(database)).toEqual(await referenceIndexes(POSTGRES_TARGET))
      expect(
        await database.query(`select name from kysely_migration where name = '${SEARCH_INDEXES}'`),
      ).toHaveLength(1)
    },
  )
})

for (const target of [SQLITE_TARGET, POSTGRES_TARGET]) {
  describe.skipIf(!target.available)(`migration 0004 on ${target.name}`, () => {
    it('makes the indexes it made when it ran in a transaction: same names, same columns', async () => {
      isolated = await target.create()
      await (await createDatabase(isolated.config, { migrations: BUILDS.concurrent })).close()
      const built = await memberIndexes(isolated)
      expect(built).toEqual(await referenceIndexes(target))
      expect(Object.keys(built)).toEqual(
        expect.arrayContaining(['member_by_member_id_idx', 'member_by_last_modified_at_idx']),
      )
      expect(Object.keys(built)).not.toContain('member_first_name_idx')
      expect(Object.values(built).join('\n')).toContain(
        target.name === 'postgres'
          ? 'member_by_created_at_idx ON member USING btree (created_at, member_id, first_name, last_name)'
          : '"member_by_created_at_idx" on "member" ("created_at", "member_id", "first_name", "last_name")',
      )
    })
  })
}
