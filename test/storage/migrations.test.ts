import type { Kysely } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { createDatabase } from '../../src/infra/db/create-database.js'
import { MIGRATIONS } from '../../src/resources/index.js'
import {
  DATABASES,
  type IsolatedDatabase,
  migrateInChildProcess,
  openDatabase,
} from '../helpers/databases.js'

const MIGRATION_TABLE = 'kysely_migration' as never

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`migrations on ${target.name}`, () => {
    let isolated: IsolatedDatabase | undefined
    afterEach(async () => {
      await isolated?.drop()
      isolated = undefined
    })

    async function appliedMigrations(database: IsolatedDatabase): Promise<string[]> {
      const opened = await openDatabase(database.config)
      try {
        const rows = await opened.db
          .selectFrom(MIGRATION_TABLE)
          .select('name' as never)
          .execute()
        return rows.map((row) => (row as { name: string }).name)
      } finally {
        await opened.close()
      }
    }

    it('creates the schema on first start and is a no-op on the next', async () => {
      isolated = await target.create()
      const first = await appliedMigrations(isolated)
      expect(first).toContain('0001-create-todo')
      expect(await appliedMigrations(isolated)).toEqual(first)
    })

    it('migrates its own schema while another schema of the database is already migrated', async () => {
      const neighbour = await target.create()
      try {
        await (await openDatabase(neighbour.config)).close()
        isolated = await target.create()
        expect(await appliedMigrations(isolated)).toContain('0002-create-member')
      } finally {
        await neighbour.drop()
      }
    })

    it('applies each migration exactly once when instances start together', async () => {
      isolated = await target.create()
      const exitCodes = await Promise.all(
        [1, 2, 3].map(() => migrateInChildProcess((isolated as IsolatedDatabase).config)),
      )
      expect(exitCodes).toEqual([0, 0, 0])
      const names = await appliedMigrations(isolated)
      expect(names).toContain('0001-create-todo')
      expect(names).toEqual([...new Set(names)])
    })

    it('serves on the schema of a newer release once it has every migration of its own', async () => {
      isolated = await target.create()
      await (await openDatabase(isolated.config)).close()
      await isolated.exec(`insert into kysely_migration values ('0099-of-a-newer-release', 'now')`)
      const database = await createDatabase(isolated.config, { migrations: MIGRATIONS })
      expect(database.migrated).toEqual({ applied: [], newer: ['0099-of-a-newer-release'] })
      await database.close()
    })

    it('refuses, before applying anything, a newer schema that lacks one of its own', async () => {
      isolated = await target.create()
      await (await openDatabase(isolated.config)).close()
      await isolated.exec(`insert into kysely_migration values ('0099-of-a-newer-release', 'now')`)
      const ownNewest = { ...MIGRATIONS, '0098-of-this-release': () => ({ async up() {} }) }
      const failure = await createDatabase(isolated.config, { migrations: ownNewest }).catch(
        (error: Error) => error,
      )
      expect(failure).toBeInstanceOf(Error)
      expect(String((failure as Error).cause)).toContain(
        'the database has migration 0099-of-a-newer-release of a newer release, but not 0098-of-this-release of this one',
      )
    })

    it('leaves nothing of a migration that fails, and applies it on the next start', async () => {
      isolated = await target.create()
      let fails = true
      const migrations = {
        ...MIGRATIONS,
        '0099-fails-once': () => ({
          async up(db: Kysely<unknown>) {
            await db.schema.createTable('half_made').addColumn('id', 'integer').execute()
            if (fails) throw new Error('failed on purpose')
          },
        }),
      }
      await expect(createDatabase(isolated.config, { migrations })).rejects.toThrow(
        'Database migration 0099-fails-once failed',
      )
      const tables = async () =>
        (
          await isolated?.query<{ name: string }>(
            target.name === 'postgres'
              ? `select table_name as name from information_schema.tables where table_schema = current_schema()`
              : `select name from sqlite_master where type = 'table'`,
          )
        )?.map(({ name }) => name)
      expect(await tables()).not.toContain('half_made')
      fails = false
      await (await createDatabase(isolated.config, { migrations })).close()
      expect(await tables()).toContain('half_made')
    })
  })
}
