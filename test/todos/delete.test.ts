import { describe, expect, it } from 'vitest'
import { DATABASES } from '../helpers/databases.js'
import { serverPerSuite } from '../helpers/server.js'
import { expectTodoNotFound, todoClient } from '../helpers/todos.js'

/**
 * DELETE /todos/{todoId}: deleting, conditionally with If-Match, over real HTTP on every database (spec: Todo endpoints).
 */

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Todo resource on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const { call, createTodo } = todoClient(suite)

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
  })
}
