import { afterEach, describe, expect, it } from 'vitest'
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
  })
}
