import { type Kysely, type Selectable, sql } from 'kysely'
import type { Todo } from '../../domain/todo/model.js'
import type { TodoRepository } from '../../domain/todo/repository.js'
import { toBoolean, toDate } from '../db/dialect.js'
import { precompiled } from '../db/precompiled.js'
import type { DatabaseSchema, TodoTable } from '../db/schema.js'

function toTodo(row: Selectable<TodoTable>): Todo {
  return {
    todoId: row.todo_id,
    todoTitle: row.todo_title,
    finished: toBoolean(row.finished),
    createdAt: toDate(row.created_at),
  }
}

/** SQLite has no boolean type but both databases understand the TRUE/FALSE literals. */
const TRUE = sql.lit(true)
const FALSE = sql.lit(false)

export class KyselyTodoRepository implements TodoRepository {
  readonly #byId: (todoId: string) => Promise<Selectable<TodoTable>[]>

  constructor(private readonly db: Kysely<DatabaseSchema>) {
    this.#byId = precompiled(db, db.selectFrom('todo').selectAll().where('todo_id', '=', ''))
  }

  async findAll(): Promise<Todo[]> {
    const rows = await this.db
      .selectFrom('todo')
      .selectAll()
      .orderBy('created_at')
      .orderBy('todo_id')
      .execute()
    return rows.map(toTodo)
  }

  async findById(todoId: string): Promise<Todo | undefined> {
    const [row] = await this.#byId(todoId)
    return row && toTodo(row)
  }

  async insert(todo: Todo): Promise<void> {
    await this.db
      .insertInto('todo')
      .values({
        todo_id: todo.todoId,
        todo_title: todo.todoTitle,
        created_at: todo.createdAt.toISOString(),
      })
      .execute()
  }

  async markFinished(todoId: string): Promise<Todo | undefined> {
    const row = await this.db
      .updateTable('todo')
      .set({ finished: TRUE })
      .where('todo_id', '=', todoId)
      .where('finished', '=', FALSE)
      .returningAll()
      .executeTakeFirst()
    return row && toTodo(row)
  }

  async delete(todoId: string, whenFinished?: boolean): Promise<boolean> {
    let query = this.db.deleteFrom('todo').where('todo_id', '=', todoId)
    if (whenFinished !== undefined)
      query = query.where('finished', '=', whenFinished ? TRUE : FALSE)
    const result = await query.executeTakeFirst()
    return result.numDeletedRows > 0n
  }
}
