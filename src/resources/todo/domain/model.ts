import type { Instant } from '../../../domain/common/instant.js'

/** The resource's name, as its domain errors say it. */
export const TODO = 'todo'

/** The business rules of a Todo: a finished Todo cannot be finished again. */
export type TodoRule = 'todo-already-finished'

export interface Todo {
  readonly todoId: string
  readonly todoTitle: string
  readonly finished: boolean
  readonly createdAt: Instant
}

export interface NewTodo {
  readonly todoTitle: string
}

/**
 * A Todo's only mutable state is `finished`, and it moves one way, so the version is
 * derived from it: 1 while open, 2 once finished.
 */
export function todoVersion(todo: Todo): number {
  return todo.finished ? 2 : 1
}
