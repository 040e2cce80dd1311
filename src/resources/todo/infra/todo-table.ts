import type { StoredBoolean, Timestamp } from '../../../infra/db/schema.js'

export interface TodoTable {
  todo_id: string
  todo_title: string
  finished: StoredBoolean
  created_at: Timestamp
}

declare module '../../../infra/db/schema.js' {
  interface DatabaseSchema {
    todo: TodoTable
  }
}
