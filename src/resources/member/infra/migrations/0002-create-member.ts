import { type Kysely, type Migration, sql } from 'kysely'
import type { EngineTraits } from '../../../../infra/db/engine/traits.js'

export function createMember(engine: EngineTraits): Migration {
  const timestamp = sql.raw(engine.timestampType)
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('member')
        .addColumn('member_id', engine.text(10), (column) => column.primaryKey())
        .addColumn('first_name', engine.text(128), (column) => column.notNull())
        .addColumn('last_name', engine.text(128), (column) => column.notNull())
        .addColumn('gender_code', engine.text(1), (column) => column.notNull())
        .addColumn('date_of_birth', sql.raw(engine.dateType), (column) => column.notNull())
        .addColumn('email_address', engine.text(256), (column) => column.notNull())
        .addColumn('telephone_number', engine.text(20))
        .addColumn('zip_code', engine.text(20))
        .addColumn('address', engine.text(256))
        .addColumn('created_at', timestamp, (column) => column.notNull())
        .addColumn('last_modified_at', timestamp, (column) => column.notNull())
        .addColumn('version', 'integer', (column) => column.notNull())
        .execute()
      await db.schema
        .createTable('member_credential')
        .addColumn('member_id', engine.text(10), (column) =>
          column.primaryKey().references('member.member_id').onDelete('cascade'),
        )
        .addColumn('sign_id', engine.text(256), (column) => column.notNull())
        .addColumn('password_hash', 'text', (column) => column.notNull())
        .addColumn('password_last_changed_at', timestamp, (column) => column.notNull())
        .addColumn('last_modified_at', timestamp, (column) => column.notNull())
        .execute()
      // Concurrent creates with one sign id: the index lets exactly one win.
      await db.schema
        .createIndex('member_credential_sign_id_uq')
        .on('member_credential')
        .column('sign_id')
        .unique()
        .execute()
      // Prefix search on either name is a range scan of one of these; with the id they
      // also answer the count and the OR's de-duplication without reading the table.
      await db.schema
        .createIndex('member_first_name_idx')
        .on('member')
        .columns(['first_name', 'member_id'])
        .execute()
      await db.schema
        .createIndex('member_last_name_idx')
        .on('member')
        .columns(['last_name', 'member_id'])
        .execute()
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('member_credential').execute()
      await db.schema.dropTable('member').execute()
    },
  }
}
