import { describe, expect, it } from 'vitest'
import { JSON_TYPE } from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import { serverPerSuite } from '../helpers/server.js'
import { type TodoBody, todoClient } from '../helpers/todos.js'

/**
 * POST /todos: a new Todo is open, stamped by the service, named by Location and ETag, over real HTTP on every database (spec: Todo endpoints).
 */

const ISO_MILLIS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Todo resource on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const { call, createTodo } = todoClient(suite)

    describe('POST /todos', () => {
      it('creates an open Todo: 201, the resource with every field, Location and ETag', async () => {
        const before = Date.now()
        const response = await call('POST', '/todos', { body: { todoTitle: 'Buy milk' } })
        expect(response.status).toBe(201)
        expect(response.headers['content-type']).toBe(JSON_TYPE)
        const todo = response.body as TodoBody
        expect(Object.keys(todo)).toEqual(['todoId', 'todoTitle', 'finished', 'createdAt'])
        expect(todo).toEqual({
          todoId: expect.stringMatching(UUID),
          todoTitle: 'Buy milk',
          finished: false,
          createdAt: expect.stringMatching(ISO_MILLIS_UTC),
        })
        expect(Date.parse(todo.createdAt)).toBeGreaterThanOrEqual(before - 1)
        expect(Date.parse(todo.createdAt)).toBeLessThanOrEqual(Date.now())
        expect(response.headers.location).toBe(
          `${suite.server.baseUrl}/api/v1/todos/${todo.todoId}`,
        )
        expect(response.headers.etag).toBe('"1"')
      })

      it('ignores a posted-back todoId, finished and createdAt (but stores the title)', async () => {
        const response = await call('POST', '/todos', {
          body: {
            todoId: 'mine',
            todoTitle: 'Posted back',
            finished: true,
            createdAt: '2001-01-01T00:00:00.000Z',
          },
        })
        expect(response.status).toBe(201)
        const todo = response.body as TodoBody
        expect(todo.todoId).not.toBe('mine')
        expect(todo.finished).toBe(false)
        expect(todo.createdAt).not.toBe('2001-01-01T00:00:00.000Z')
        expect((await call('GET', `/todos/${todo.todoId}`)).body).toEqual(todo)
      })

      it('accepts titles of 1 and 30 characters and keeps them exactly', async () => {
        for (const title of ['x', 'x'.repeat(30), ' padded ', 'ＴＯＤＯ 日本語のタイトル']) {
          expect((await createTodo(title)).todoTitle).toBe(title)
        }
      })

      it('assigns distinct time-ordered ids', async () => {
        const first = await createTodo('first')
        const second = await createTodo('second')
        expect(first.todoId).not.toBe(second.todoId)
        expect(first.todoId < second.todoId).toBe(true)
      })

      it('rejects a missing title without storing anything', async () => {
        const countBefore = ((await call('GET', '/todos')).body as unknown[]).length
        const response = await call('POST', '/todos', { body: { finished: false } })
        expect(response.status).toBe(400)
        expect(response.body).toEqual({
          code: 'e.ex.fw.7001',
          message: 'Validation error occurred on item in the request body.',
          details: [
            { code: 'NotNull', message: 'todoTitle may not be null.', target: 'todoTitle' },
          ],
        })
        expect(((await call('GET', '/todos')).body as unknown[]).length).toBe(countBefore)
      })
    })
  })
}
