import { expect } from 'vitest'
import { JSON_TYPE } from './api-errors.js'
import type { HttpOptions, HttpResponse } from './http.js'
import type { SuiteServer } from './server.js'

/** A Todo as the API answers it, and helpers the Todo suites share. */
export interface TodoBody {
  todoId: string
  todoTitle: string
  finished: boolean
  createdAt: string
}

/** The calls of a Todo suite on its server: requests under /api/v1, a create, the 404. */
export function todoClient(suite: SuiteServer) {
  const call = (method: string, path: string, options?: HttpOptions) =>
    suite.server.request(method, `/api/v1${path}`, options)

  async function createTodo(todoTitle: string): Promise<TodoBody> {
    const response = await call('POST', '/todos', { body: { todoTitle } })
    expect(response.status).toBe(201)
    return response.body as TodoBody
  }

  return { call, createTodo }
}

/** The Todo's own 404, e.ex.td.5001, naming the id. */
export function expectTodoNotFound(response: HttpResponse, todoId: string) {
  expect(response.status).toBe(404)
  expect(response.headers['content-type']).toBe(JSON_TYPE)
  expect(response.body).toEqual({
    code: 'e.ex.td.5001',
    message: `Specified todo not found. todo id : ${todoId}`,
  })
}
