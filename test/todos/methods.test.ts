import { describe, expect, it } from 'vitest'
import { DATABASES } from '../helpers/databases.js'
import { serverPerSuite } from '../helpers/server.js'
import { expectTodoNotFound, todoClient } from '../helpers/todos.js'

/**
 * OPTIONS on the collection and on an item, and Todos kept across a restart, over real HTTP on every database (spec: Todo endpoints).
 */

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Todo resource on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const { call, createTodo } = todoClient(suite)

    describe('OPTIONS', () => {
      it('lists the methods of the collection', async () => {
        const response = await call('OPTIONS', '/todos')
        expect(response.status).toBe(200)
        expect(response.headers.allow).toBe('GET, HEAD, POST, OPTIONS')
        expect(response.text).toBe('')
      })

      it('lists the methods of an existing item, and answers 404 for an unknown one', async () => {
        const todo = await createTodo('options')
        const response = await call('OPTIONS', `/todos/${todo.todoId}`)
        expect(response.status).toBe(200)
        expect(response.headers.allow).toBe('GET, HEAD, PUT, DELETE, OPTIONS')
        expect(response.text).toBe('')
        expectTodoNotFound(await call('OPTIONS', '/todos/unknown'), 'unknown')
      })
    })

    it('keeps Todos across a restart of the service', async () => {
      const todo = await createTodo('durable')
      await call('PUT', `/todos/${todo.todoId}`)
      await suite.restart()
      expect((await call('GET', `/todos/${todo.todoId}`)).body).toEqual({ ...todo, finished: true })
    })
  })
}
