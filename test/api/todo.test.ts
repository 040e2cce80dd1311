import { describe, expect, it } from 'vitest'
import { DATABASES } from '../helpers/databases.js'
import type { HttpResponse } from '../helpers/http.js'
import { serverPerSuite, type TestServer } from '../helpers/server.js'

const JSON_TYPE = 'application/json;charset=UTF-8'
const ISO_MILLIS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

interface TodoBody {
  todoId: string
  todoTitle: string
  finished: boolean
  createdAt: string
}

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Todo resource on ${target.name}`, () => {
    const suite = serverPerSuite(target)

    const call = (method: string, path: string, options?: Parameters<TestServer['request']>[2]) =>
      suite.server.request(method, `/api/v1${path}`, options)

    async function createTodo(todoTitle: string): Promise<TodoBody> {
      const response = await call('POST', '/todos', { body: { todoTitle } })
      expect(response.status).toBe(201)
      return response.body as TodoBody
    }

    function expectTodoNotFound(response: HttpResponse, todoId: string) {
      expect(response.status).toBe(404)
      expect(response.headers['content-type']).toBe(JSON_TYPE)
      expect(response.body).toEqual({
        code: 'e.ex.td.5001',
        message: `Specified todo not found. todo id : ${todoId}`,
      })
    }

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

    describe('GET /todos', () => {
      it('lists every Todo ordered by createdAt then todoId', async () => {
        await createTodo('one')
        await createTodo('two')
        const response = await call('GET', '/todos')
        expect(response.status).toBe(200)
        expect(response.headers['content-type']).toBe(JSON_TYPE)
        const todos = response.body as TodoBody[]
        expect(todos.length).toBeGreaterThanOrEqual(2)
        const order = todos.map((todo) => [todo.createdAt, todo.todoId].join(' '))
        expect(order).toEqual([...order].sort())
      })

      it('breaks createdAt ties by todoId', async () => {
        const stamp = '2000-01-01T00:00:00.000Z'
        const finished = target.name === 'sqlite' ? '0' : 'false'
        await suite.database.exec(
          `insert into todo (todo_id, todo_title, finished, created_at) values
             ('00000000-0000-7000-8000-00000000000b', 'tie b', ${finished}, '${stamp}'),
             ('00000000-0000-7000-8000-00000000000a', 'tie a', ${finished}, '${stamp}')`,
        )
        const todos = (await call('GET', '/todos')).body as TodoBody[]
        expect(todos.slice(0, 2).map((todo) => todo.todoTitle)).toEqual(['tie a', 'tie b'])
        expect(todos[0]?.createdAt).toBe(stamp)
      })
    })

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

    describe('DELETE /todos/{todoId}', () => {
      it('deletes: 204 without body or Content-Type, then 404', async () => {
        const todo = await createTodo('delete me')
        const response = await call('DELETE', `/todos/${todo.todoId}`)
        expect(response.status).toBe(204)
        expect(response.text).toBe('')
        expect(response.headers['content-type']).toBeUndefined()
        expectTodoNotFound(await call('GET', `/todos/${todo.todoId}`), todo.todoId)
        expectTodoNotFound(await call('DELETE', `/todos/${todo.todoId}`), todo.todoId)
      })

      it('deletes open and finished Todos alike', async () => {
        const todo = await createTodo('finished then deleted')
        await call('PUT', `/todos/${todo.todoId}`)
        expect((await call('DELETE', `/todos/${todo.todoId}`)).status).toBe(204)
      })

      it('honours If-Match: 412 on a stale tag and the Todo stays; 204 on a match', async () => {
        const todo = await createTodo('conditional delete')
        await call('PUT', `/todos/${todo.todoId}`)
        const stale = await call('DELETE', `/todos/${todo.todoId}`, {
          headers: { 'if-match': '"1"' },
        })
        expect(stale.status).toBe(412)
        expect(stale.body).toEqual({
          code: 'e.ex.fw.8002',
          message: 'Conflict with other processing occurred.',
        })
        expect((await call('GET', `/todos/${todo.todoId}`)).status).toBe(200)
        const matched = await call('DELETE', `/todos/${todo.todoId}`, {
          headers: { 'if-match': '"2"' },
        })
        expect(matched.status).toBe(204)
        expectTodoNotFound(
          await call('DELETE', `/todos/${todo.todoId}`, { headers: { 'if-match': '"2"' } }),
          todo.todoId,
        )
      })
    })

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
