import { type Kysely, type Migration, sql } from 'kysely'
import type { EngineTraits } from '../../../../infra/db/engine/traits.js'

export function createTodo(engine: EngineTraits): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('todo')
        .addColumn('todo_id', 'varchar(36)', (column) => column.primaryKey())
        .addColumn('todo_title', 'varchar(30)', (column) => column.notNull())
        .addColumn('finished', 'boolean', (column) => column.notNull().defaultTo(sql`false`))
        .addColumn('created_at', sql.raw(engine.timestampType), (column) => column.notNull())
        .execute()
      // The list is read in this order.
      await db.schema
        .createIndex('todo_created_at_idx')
        .on('todo')
        .columns(['created_at', 'todo_id'])
        .execute()
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('todo').execute()
    },
  }
}
