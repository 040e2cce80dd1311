import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Todo } from '../../src/domain/todo/model.js'
import { createDatabase, type Database } from '../../src/infra/db/create-database.js'
import { KyselyTodoRepository } from '../../src/infra/todo/todo-repository.js'
import { DATABASES, type IsolatedDatabase } from '../helpers/databases.js'

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`KyselyTodoRepository on ${target.name}`, () => {
    let isolated: IsolatedDatabase
    let database: Database
    let repository: KyselyTodoRepository
    let sequence = 0

    beforeAll(async () => {
      isolated = await target.create()
      database = await createDatabase(isolated.config)
      repository = new KyselyTodoRepository(database.db)
    })
    afterAll(async () => {
      await database?.close()
      await isolated?.drop()
    })

    function newTodo(overrides: Partial<Todo> = {}): Todo {
      sequence += 1
      return {
        todoId: `00000000-0000-7000-8000-${String(sequence).padStart(12, '0')}`,
        todoTitle: `todo ${sequence}`,
        finished: false,
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, sequence)),
        ...overrides,
      }
    }

    it('stores and reads back a Todo exactly, millisecond time stamp included', async () => {
      const todo = newTodo({
        todoTitle: '絵文字 😀 and "quotes"',
        createdAt: new Date('2026-11-22T09:15:02.123Z'),
      })
      await repository.insert(todo)
      expect(await repository.findById(todo.todoId)).toEqual(todo)
    })

    it('returns undefined for an unknown id', async () => {
      expect(await repository.findById('unknown')).toBeUndefined()
    })

    it('marks an open Todo finished once, and reports nothing the second time', async () => {
      const todo = newTodo()
      await repository.insert(todo)
      expect(await repository.markFinished(todo.todoId)).toEqual({ ...todo, finished: true })
      expect(await repository.markFinished(todo.todoId)).toBeUndefined()
      expect(await repository.markFinished('unknown')).toBeUndefined()
    })

    it('deletes only while the finished state matches, when one is given', async () => {
      const todo = newTodo()
      await repository.insert(todo)
      expect(await repository.delete(todo.todoId, true)).toBe(false)
      expect(await repository.findById(todo.todoId)).toEqual(todo)
      expect(await repository.delete(todo.todoId, false)).toBe(true)
      expect(await repository.delete(todo.todoId)).toBe(false)
    })

    it('lists by creation time, ties broken by id', async () => {
      const stamp = new Date('2030-01-01T00:00:00.000Z')
      const later = newTodo({ createdAt: new Date('2030-01-01T00:00:00.001Z') })
      const tieB = newTodo({ todoId: 'ffff-b', createdAt: stamp })
      const tieA = newTodo({ todoId: 'ffff-a', createdAt: stamp })
      for (const todo of [later, tieB, tieA]) await repository.insert(todo)
      const ids = (await repository.findAll()).map((todo) => todo.todoId)
      expect(ids.slice(-3)).toEqual(['ffff-a', 'ffff-b', later.todoId])
    })

    it('refuses a second Todo with the same id (primary key)', async () => {
      const todo = newTodo()
      await repository.insert(todo)
      await expect(repository.insert(todo)).rejects.toMatchObject({ name: 'UniqueViolationError' })
    })
  })
}
