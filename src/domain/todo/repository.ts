import type { Todo } from './model.js'

export interface TodoRepository {
  /** Every Todo, oldest first (ties broken by id). */
  findAll(): Promise<Todo[]>
  findById(todoId: string): Promise<Todo | undefined>
  insert(todo: Todo): Promise<void>
  /** Sets `finished` if the Todo exists and is still open; the updated Todo, else undefined. */
  markFinished(todoId: string): Promise<Todo | undefined>
  /** Deletes the Todo, only while its `finished` equals `whenFinished` if that is given. */
  delete(todoId: string, whenFinished?: boolean): Promise<boolean>
}
