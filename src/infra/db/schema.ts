import type { ColumnType } from 'kysely'

/**
 * Table shapes as Kysely sees them. Time stamps are written as ISO strings on both
 * databases and read back as Date (pg) or string (SQLite); booleans read back as
 * boolean (pg) or 0/1 (SQLite). The repositories normalise both.
 */
export type Timestamp = ColumnType<Date | string, string, string>
/** Written only through the TRUE/FALSE literals (SQLite cannot bind a JS boolean). */
export type StoredBoolean = ColumnType<boolean | number, never, boolean>

export interface TodoTable {
  todo_id: string
  todo_title: string
  finished: StoredBoolean
  created_at: Timestamp
}

export interface DatabaseSchema {
  todo: TodoTable
}
