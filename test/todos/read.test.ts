import { describe, expect, it } from 'vitest'
import { JSON_TYPE } from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import { serverPerSuite } from '../helpers/server.js'
import { expectTodoNotFound, todoClient } from '../helpers/todos.js'

/**
 * GET and HEAD /todos/{todoId}: the Todo and its ETag; 304 and 404, over real HTTP on every database (spec: Todo endpoints).
 */

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Todo resource on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const { call, createTodo } = todoClient(suite)

    describe('GET /todos/{todoId}', () => {
      it('returns the Todo with its ETag', async () => {
        const todo = await createTodo('read me')
        const response = await call('GET', `/todos/${todo.todoId}`)
        expect(response.status).toBe(200)
        expect(response.headers['content-type']).toBe(JSON_TYPE)
        expect(response.headers.etag).toBe('"1"')
        expect(response.body).toEqual(todo)
      })

      it('answers 404 e.ex.td.5001 for an unknown id, however it looks', async () => {
        for (const todoId of [
          '00000000-0000-7000-8000-000000000000',
          'not-a-uuid',
          'x'.repeat(2000),
        ]) {
          expectTodoNotFound(await call('GET', `/todos/${todoId}`), todoId)
        }
      })

      it('answers in Japanese when asked', async () => {
        const response = await call('GET', '/todos/nope', { headers: { 'accept-language': 'ja' } })
        expect(response.body).toEqual({
          code: 'e.ex.td.5001',
          message: '指定されたTodoが見つかりません。Todo ID : nope',
        })
      })

      it('answers 304 with the ETag and no body when If-None-Match names it (weakly)', async () => {
        const todo = await createTodo('cached')
        for (const tag of ['"1"', 'W/"1"', '"0", "1"', '*']) {
          const response = await call('GET', `/todos/${todo.todoId}`, {
            headers: { 'if-none-match': tag },
          })
          expect(response.status).toBe(304)
          expect(response.headers.etag).toBe('"1"')
          expect(response.headers['content-type']).toBeUndefined()
          expect(response.text).toBe('')
        }
        const changed = await call('GET', `/todos/${todo.todoId}`, {
          headers: { 'if-none-match': '"2"' },
        })
        expect(changed.status).toBe(200)
        expect(changed.body).toEqual(todo)
      })
    })

    describe('HEAD', () => {
      it('answers GET headers without a body, on the list and on an item', async () => {
        const todo = await createTodo('headed')
        const get = await call('GET', `/todos/${todo.todoId}`)
        const head = await call('HEAD', `/todos/${todo.todoId}`)
        expect(head.status).toBe(200)
        expect(head.text).toBe('')
        expect(head.headers['content-type']).toBe(JSON_TYPE)
        expect(head.headers.etag).toBe(get.headers.etag)
        expect(head.headers['content-length']).toBe(get.headers['content-length'])
        const list = await call('HEAD', '/todos')
        expect(list.status).toBe(200)
        expect(list.text).toBe('')
      })

      it('answers 404 for an unknown item, without a body', async () => {
        const head = await call('HEAD', '/todos/unknown')
        expect(head.status).toBe(404)
        expect(head.text).toBe('')
      })
    })
  })
}
