import { describe, expect, it } from 'vitest'
import { JSON_TYPE } from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import { serverPerSuite } from '../helpers/server.js'
import { expectTodoNotFound, type TodoBody, todoClient } from '../helpers/todos.js'

/**
 * PUT /todos/{todoId}: finishing, once, conditionally with If-Match, over real HTTP on every database (spec: Todo endpoints).
 */

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Todo resource on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const { call, createTodo } = todoClient(suite)

    describe('PUT /todos/{todoId}', () => {
      it('finishes an open Todo: 200, finished true, new ETag, stored', async () => {
        const todo = await createTodo('finish me')
        const response = await call('PUT', `/todos/${todo.todoId}`)
        expect(response.status).toBe(200)
        expect(response.headers['content-type']).toBe(JSON_TYPE)
        expect(response.headers.etag).toBe('"2"')
        expect(response.body).toEqual({ ...todo, finished: true })
        expect((await call('GET', `/todos/${todo.todoId}`)).body).toEqual({
          ...todo,
          finished: true,
        })
      })

      it('answers 409 e.ex.td.8001 when the Todo is already finished, in both languages', async () => {
        const todo = await createTodo('twice')
        await call('PUT', `/todos/${todo.todoId}`)
        const again = await call('PUT', `/todos/${todo.todoId}`)
        expect(again.status).toBe(409)
        expect(again.body).toEqual({
          code: 'e.ex.td.8001',
          message: `Specified todo is already finished. todo id : ${todo.todoId}`,
        })
        const ja = await call('PUT', `/todos/${todo.todoId}`, {
          headers: { 'accept-language': 'ja' },
        })
        expect(ja.body).toEqual({
          code: 'e.ex.td.8001',
          message: `指定されたTodoは既に完了しています。Todo ID : ${todo.todoId}`,
        })
      })

      it('ignores any body and its Content-Type', async () => {
        const bodies = [
          { headers: { 'content-type': 'text/plain' }, body: 'not json at all' },
          { headers: { 'content-type': 'application/json' }, body: '{broken' },
          { headers: { 'content-type': 'application/json' }, body: { finished: false, foo: 1 } },
          { headers: { 'content-type': 'application/xml' }, body: 'x'.repeat(200_000) },
          // A Content-Type that is no media type at all is ignored as well (was 415).
          { headers: { 'content-type': '/' }, body: 'x' },
          { headers: { 'content-type': 'application/json; charset=latin1' }, body: 'x' },
        ]
        for (const options of bodies) {
          const todo = await createTodo('body ignored')
          const response = await call('PUT', `/todos/${todo.todoId}`, options)
          expect(response.status).toBe(200)
          expect((response.body as TodoBody).finished).toBe(true)
        }
      })

      it('answers 404 e.ex.td.5001 for an unknown id', async () => {
        expectTodoNotFound(await call('PUT', '/todos/missing'), 'missing')
      })

      it('honours If-Match: 412 e.ex.fw.8002 on a stale or weak tag, success on a match', async () => {
        const todo = await createTodo('conditional')
        for (const tag of ['"2"', 'W/"1"', '"x"', 'garbage']) {
          const stale = await call('PUT', `/todos/${todo.todoId}`, { headers: { 'if-match': tag } })
          expect(stale.status).toBe(412)
          expect(stale.body).toEqual({
            code: 'e.ex.fw.8002',
            message: 'Conflict with other processing occurred.',
          })
        }
        expect((await call('GET', `/todos/${todo.todoId}`)).body).toEqual(todo)
        const matched = await call('PUT', `/todos/${todo.todoId}`, {
          headers: { 'if-match': '"0", "1"' },
        })
        expect(matched.status).toBe(200)
        const star = await createTodo('star')
        expect(
          (await call('PUT', `/todos/${star.todoId}`, { headers: { 'if-match': '*' } })).status,
        ).toBe(200)
      })
    })
  })
}
