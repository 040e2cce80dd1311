import { type Kysely, type Selectable, sql } from 'kysely'
import type { RepositoryDatabase } from '../../../infra/db/create-database.js'
import type { EngineTraits } from '../../../infra/db/engine/traits.js'
import type { Precompiled } from '../../../infra/db/precompiled.js'
import { type DatabaseSchema, toBoolean } from '../../../infra/db/schema.js'
import { isStorableText } from '../../../infra/db/storable-text.js'
import { storedInstant } from '../../../infra/db/stored-instant.js'
import type { Todo } from '../domain/model.js'
import type { TodoListPosition, TodoRepository } from '../domain/repository.js'
import type { TodoTable } from './todo-table.js'

/** A Todo's row as todoColumns select it: the time stamp as text on both databases. */
type Row = Omit<Selectable<TodoTable>, 'created_at'> & { created_at: string }

function todoColumns({ instant }: EngineTraits) {
  return ['todo_id', 'todo_title', 'finished', instant('created_at').as('created_at')] as const
}

function toTodo(row: Row): Todo {
  return {
    todoId: row.todo_id,
    todoTitle: row.todo_title,
    finished: toBoolean(row.finished),
    createdAt: storedInstant(row.created_at),
  }
}

/** SQLite has no boolean type but both databases understand the TRUE/FALSE literals. */
const TRUE = sql.lit(true)
const FALSE = sql.lit(false)

export class KyselyTodoRepository implements TodoRepository {
  readonly #byId: Precompiled<Row, [todoId: string]>
  readonly #firstPage: Precompiled<Row, [limit: number]>
  readonly #pageAfter: Precompiled<Row, [createdAt: string, todoId: string, limit: number]>

  readonly #database: RepositoryDatabase
  private readonly db: Kysely<DatabaseSchema>

  constructor(
    /** Its main connections, and the long reads' where the list is read, a little behind. */
    database: RepositoryDatabase,
    /** Given on a transaction: the repository whose compiled statements `database.db` runs. */
    base?: KyselyTodoRepository,
  ) {
    const { db, reads, precompile, engine } = database
    this.#database = database
    this.db = db
    if (base) {
      this.#byId = base.#byId.on(db)
      this.#firstPage = base.#firstPage.on(reads)
      this.#pageAfter = base.#pageAfter.on(reads)
      return
    }
    const todos = db.selectFrom('todo').select(todoColumns(engine))
    this.#byId = precompile(todos.where('todo_id', '=', ''), { atMostOne: true })
    // The list in index order (todo_created_at_idx): each page starts where the last ended.
    // The order names the table's columns: a bare `created_at` would be the selected text
    // on PostgreSQL. Row values compare both columns in that order, on both databases. The
    // time stamp is bound as the ISO text it is stored as: SQLite compares that text (its
    // order is time order, as every stamp has the same form), PostgreSQL reads it as a
    // timestamptz.
    const list = todos.orderBy('todo.created_at').orderBy('todo.todo_id')
    this.#firstPage = precompile<Row, [limit: number]>(list.limit(0)).on(reads)
    this.#pageAfter = precompile<Row, [createdAt: string, todoId: string, limit: number]>(
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
      .returning(todoColumns(this.#database.engine))
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
