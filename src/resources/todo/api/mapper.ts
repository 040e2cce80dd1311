import type { Static } from 'typebox'
import type { Todo } from '../domain/model.js'
import type { TodoResource } from './schemas.js'

export function toTodoResource(todo: Todo): Static<typeof TodoResource> {
  return {
    todoId: todo.todoId,
    todoTitle: todo.todoTitle,
    finished: todo.finished,
    createdAt: todo.createdAt,
  }
}
