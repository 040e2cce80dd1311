import { type Kysely, type Selectable, sql } from 'kysely'
import type { Todo } from '../../domain/todo/model.js'
import type { TodoListPosition, TodoRepository } from '../../domain/todo/repository.js'
import type { RepositoryDatabase } from '../db/create-database.js'
import type { Precompiled } from '../db/precompiled.js'
import { type DatabaseSchema, type TodoTable, toBoolean, toInstant } from '../db/schema.js'
import { isStorableText } from '../db/storable-text.js'

function toTodo(row: Selectable<TodoTable>): Todo {
  return {
    todoId: row.todo_id,
    todoTitle: row.todo_title,
    finished: toBoolean(row.finished),
    createdAt: toInstant(row.created_at),
  }
}

/** SQLite has no boolean type but both databases understand the TRUE/FALSE literals. */
const TRUE = sql.lit(true)
const FALSE = sql.lit(false)

export class KyselyTodoRepository implements TodoRepository {
  readonly #byId: Precompiled<Selectable<TodoTable>, [todoId: string]>
  readonly #firstPage: Precompiled<Selectable<TodoTable>, [limit: number]>
  readonly #pageAfter: Precompiled<
    Selectable<TodoTable>,
    [createdAt: string, todoId: string, limit: number]
  >

  readonly #database: RepositoryDatabase
  private readonly db: Kysely<DatabaseSchema>

  constructor(
    /** Its main connections, and the long reads' where the list is read, a little behind. */
    database: RepositoryDatabase,
    /** Given on a transaction: the repository whose compiled statements `database.db` runs. */
    base?: KyselyTodoRepository,
  ) {
    const { db, reads, precompile } = database
    this.#database = database
    this.db = db
    if (base) {
      this.#byId = base.#byId.on(db)
      this.#firstPage = base.#firstPage.on(reads)
      this.#pageAfter = base.#pageAfter.on(reads)
      return
    }
    this.#byId = precompile(db.selectFrom('todo').selectAll().where('todo_id', '=', ''), {
      atMostOne: true,
    })
    // The list in index order (todo_created_at_idx): each page starts where the last ended.
    // Row values compare both columns in that order, on both databases. The time stamp is
    // bound as the ISO text it is stored as: SQLite compares that text (its order is time
    // order, as every stamp has the same form), PostgreSQL reads it as a timestamptz.
    const list = db.selectFrom('todo').selectAll().orderBy('created_at').orderBy('todo_id')
    this.#firstPage = precompile<Selectable<TodoTable>, [limit: number]>(list.limit(0)).on(reads)
    this.#pageAfter = precompile<
      Selectable<TodoTable>,
      [createdAt: string, todoId: string, limit: number]
    >(
      list
        .where(({ eb, refTuple, tuple }) =>
          eb(refTuple('created_at', 'todo_id'), '>', tuple('', '')),
        )
        .limit(0),
    ).on(reads)
  }

  /** This repository on a transaction, cheaply: nothing is built or compiled again. */
  inTransaction(trx: Kysely<DatabaseSchema>): KyselyTodoRepository {
    return new KyselyTodoRepository({ ...this.#database, db: trx, reads: trx }, this)
  }

  async listAfter(after: TodoListPosition | undefined, limit: number): Promise<Todo[]> {
    const rows = after
      ? await this.#pageAfter(after.createdAt, after.todoId, limit)
      : await this.#firstPage(limit)
    return rows.map(toTodo)
  }

  async findById(todoId: string): Promise<Todo | undefined> {
    if (!isStorableText(todoId)) return undefined
    const [row] = await this.#byId(todoId)
    return row && toTodo(row)
  }

  async insert(todo: Todo): Promise<void> {
    await this.db
      .insertInto('todo')
      .values({
        todo_id: todo.todoId,
        todo_title: todo.todoTitle,
        created_at: todo.createdAt,
      })
      .execute()
  }

  async markFinished(todoId: string): Promise<Todo | undefined> {
    if (!isStorableText(todoId)) return undefined
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
    if (!isStorableText(todoId)) return false
    let query = this.db.deleteFrom('todo').where('todo_id', '=', todoId)
    if (whenFinished !== undefined)
      query = query.where('finished', '=', whenFinished ? TRUE : FALSE)
    const result = await query.executeTakeFirst()
    return result.numDeletedRows > 0n
  }
}
