import type { Instant } from '../../../domain/common/instant.js'
import type { Todo } from './model.js'

/** A place in the list order (createdAt, then todoId): that of the last Todo already read. */
export interface TodoListPosition {
  readonly createdAt: Instant
  readonly todoId: string
}

export interface TodoRepository {
  /**
   * The next `limit` Todos after `after` (from the first when undefined), oldest first,
   * ties broken by id. Each page is one short query of its own (keyset paging), so
   * nothing stays open between pages.
   */
  listAfter(after: TodoListPosition | undefined, limit: number): Promise<Todo[]>
  findById(todoId: string): Promise<Todo | undefined>
  insert(todo: Todo): Promise<void>
  /** Sets `finished` if the Todo exists and is still open; the updated Todo, else undefined. */
  markFinished(todoId: string): Promise<Todo | undefined>
  /** Deletes the Todo, only while its `finished` equals `whenFinished` if that is given. */
  delete(todoId: string, whenFinished?: boolean): Promise<boolean>
}
