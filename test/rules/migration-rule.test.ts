import { type Kysely, sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import type { EngineTraits } from '../../src/infra/db/engine/traits.js'
import type { MigrationFactory, ServiceMigration } from '../../src/infra/db/migrate.js'
import { POSTGRES } from '../../src/infra/db/postgres/postgres-traits.js'
import { SQLITE } from '../../src/infra/db/sqlite/sqlite-traits.js'
import { MIGRATIONS } from '../../src/resources/index.js'
import {
  checkMigrationRule,
  EXPAND_EXAMPLE,
  EXPAND_INDEX_EXAMPLE,
} from '../helpers/migration-rule.js'

/**
 * The rule every migration follows so that instances of the release before keep working
 * on the schema a new release migrated during a rolling upgrade (src/infra/db/migrate.ts:
 * expand, then contract), checked on the statements of every migration, on both engines.
 */

const ENGINES: readonly EngineTraits[] = [SQLITE, POSTGRES]
const NEXT = '0099-next-release'

/** A next migration that runs `up` on its connection. */
const next =
  (up: (db: Kysely<unknown>) => Promise<unknown>, contracts?: string): MigrationFactory =>
  (): ServiceMigration => ({
    ...(contracts !== undefined && { contracts }),
    async up(db) {
      await up(db)
    },
  })

/** Each way of taking away what the release before uses, as a next release might write it. */
const TAKING_AWAY: Record<string, MigrationFactory> = {
  'drops a column': next((db) => db.schema.alterTable('member').dropColumn('address').execute()),
  renames: next((db) =>
    db.schema.alterTable('member').renameColumn('first_name', 'given_name').execute(),
  ),
  'renames a table': next((db) => db.schema.alterTable('todo').renameTo('task').execute()),
  "changes a column's type": next((db) =>
    db.schema
      .alterTable('member')
      .alterColumn('zip_code', (column) => column.setDataType('integer'))
      .execute(),
  ),
  'makes a column NOT NULL': next((db) =>
    db.schema
      .alterTable('member')
      .alterColumn('address', (column) => column.setNotNull())
      .execute(),
  ),
  "drops a column's default": next((db) =>
    db.schema
      .alterTable('todo')
      .alterColumn('finished', (column) => column.dropDefault())
      .execute(),
  ),
  'adds a NOT NULL column without a default': next((db) =>
    db.schema
      .alterTable('member')
      .addColumn('nickname', 'text', (column) => column.notNull())
      .execute(),
  ),
  'drops a table': next((db) => db.schema.dropTable('idempotency_key').execute()),
  'drops a unique index': next((db) =>
    db.schema.dropIndex('member_credential_sign_id_uq').execute(),
  ),
  'adds a unique index to a table': next((db) =>
    db.schema
      .createIndex('member_email_uq')
      .on('member')
      .column('email_address')
      .unique()
      .execute(),
  ),
  'adds a constraint': next((db) =>
    db.schema
      .alterTable('member')
      .addCheckConstraint('member_gender_ck', sql`gender_code in ('0', '1', '2', '9')`)
      .execute(),
  ),
  'removes rows': next((db) => db.deleteFrom('todo' as never).execute()),
}

describe('the migration rule: expand, then contract', () => {
  for (const engine of ENGINES) {
    it(`holds for every migration of the service on ${engine.kind}`, async () => {
      const report = await checkMigrationRule(MIGRATIONS, engine)
      expect(report.violations).toEqual([])
      // 0004 drops the two name indexes it replaces: allowed, and seen.
      expect(report.allowed.map(({ migration, statement }) => [migration, statement])).toEqual([
        [
          '0004-member-search-indexes',
          expect.stringMatching(/^drop index .*member_first_name_idx$/),
        ],
        [
          '0004-member-search-indexes',
          expect.stringMatching(/^drop index .*member_last_name_idx$/),
        ],
      ])
    })
  }

  for (const [what, migration] of Object.entries(TAKING_AWAY)) {
    it(`catches a next migration that ${what}`, async () => {
      for (const engine of ENGINES) {
        const report = await checkMigrationRule({ ...MIGRATIONS, [NEXT]: migration }, engine)
        expect(report.violations.map(({ migration }) => migration)).toEqual([NEXT])
      }
    })
  }

  it('allows taking away in a contract step that names its earlier expand', async () => {
    const contract = next(
      (db) => db.schema.alterTable('member').dropColumn('address').execute(),
      '0002-create-member',
    )
    const report = await checkMigrationRule({ ...MIGRATIONS, [NEXT]: contract }, POSTGRES)
    expect(report.violations).toEqual([])
    expect(report.allowed.at(-1)?.why).toBe(
      'drops a column, as the contract step of 0002-create-member',
    )
  })

  it('refuses a contract step that names no earlier migration', async () => {
    for (const named of ['0100-later', '0007-unknown']) {
      const contract = next((db) => db.schema.dropTable('todo').execute(), named)
      const report = await checkMigrationRule({ ...MIGRATIONS, [NEXT]: contract }, POSTGRES)
      expect(report.violations[0]?.why).toBe(
        `says it contracts ${named}, which is no earlier migration`,
      )
    }
  })

  it('allows what expands: a table, a nullable column, a column with a default, an index', async () => {
    for (const engine of ENGINES) {
      const migrations = {
        ...MIGRATIONS,
        [NEXT]: EXPAND_EXAMPLE,
        '0100-nickname-index': EXPAND_INDEX_EXAMPLE,
      }
      expect((await checkMigrationRule(migrations, engine)).violations).toEqual([])
    }
  })
})
