import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../src/infra/db/create-database.js'
import type { Todo } from '../../src/resources/todo/domain/model.js'
import { KyselyTodoRepository } from '../../src/resources/todo/infra/todo-repository.js'
import { DATABASES, type IsolatedDatabase, openDatabase } from '../helpers/databases.js'

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`KyselyTodoRepository on ${target.name}`, () => {
    let isolated: IsolatedDatabase
    let database: Database
    let repository: KyselyTodoRepository
    let sequence = 0

    beforeAll(async () => {
      isolated = await target.create()
      database = await openDatabase(isolated.config)
      repository = new KyselyTodoRepository(database)
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
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, sequence)).toISOString(),
        ...overrides,
      }
    }

    it('stores and reads back a Todo exactly, millisecond time stamp included', async () => {
      const todo = newTodo({
        todoTitle: '絵文字 😀 and "quotes"',
        createdAt: '2026-11-22T09:15:02.123Z',
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

    /** Every Todo, read page by page with listAfter. */
    async function listAll(limit: number): Promise<Todo[]> {
      const todos: Todo[] = []
      for (;;) {
        const last = todos.at(-1)
        const page = await repository.listAfter(last, limit)
        todos.push(...page)
        if (page.length < limit) return todos
      }
    }

    it('lists by creation time, ties broken by id', async () => {
      const stamp = '2030-01-01T00:00:00.000Z'
      const later = newTodo({ createdAt: '2030-01-01T00:00:00.001Z' })
      const tieB = newTodo({ todoId: 'ffff-b', createdAt: stamp })
      const tieA = newTodo({ todoId: 'ffff-a', createdAt: stamp })
      for (const todo of [later, tieB, tieA]) await repository.insert(todo)
      const ids = (await listAll(1000)).map((todo) => todo.todoId)
      expect(ids.slice(-3)).toEqual(['ffff-a', 'ffff-b', later.todoId])
    })

    it('pages through the list in order, each page starting right after the position given', async () => {
      await isolated.exec('delete from todo')
      expect(await repository.listAfter(undefined, 10)).toEqual([])
      // Ties across page boundaries, and stamps whose text and time order must agree:
      // a millisecond apart, across a second, a day and a year, inserted out of order.
      const stamps = [
        '2040-01-01T00:00:00.000Z',
        '2040-01-01T00:00:00.001Z',
        '2040-01-01T00:00:00.010Z',
        '2040-01-01T00:00:00.999Z',
        '2040-01-01T00:00:01.000Z',
        '2040-01-02T00:00:00.000Z',
        '2041-01-01T00:00:00.000Z',
      ]
      const todos: Todo[] = []
      for (const [index, stamp] of stamps.entries()) {
        for (const suffix of ['c', 'a', 'b']) {
          todos.push(newTodo({ todoId: `page-${index}-${suffix}`, createdAt: stamp }))
        }
      }
      for (const todo of [...todos].reverse()) await repository.insert(todo)
      const expected = [...todos].sort((a, b) => {
        const time = Date.parse(a.createdAt) - Date.parse(b.createdAt)
        return time !== 0 ? time : a.todoId < b.todoId ? -1 : 1
      })
      for (const limit of [1, 2, 3, 4, 21, 22]) {
        expect(await listAll(limit), `pages of ${limit}`).toEqual(expected)
      }
      // A position between two Todos (not one of them) works as well.
      const after = { createdAt: '2040-01-01T00:00:00.005Z', todoId: 'zzz' }
      expect((await repository.listAfter(after, 2)).map((todo) => todo.todoId)).toEqual([
        'page-2-a',
        'page-2-b',
      ])
      const lastOfTie = { createdAt: stamps[0] as string, todoId: 'page-0-b' }
      expect((await repository.listAfter(lastOfTie, 2)).map((todo) => todo.todoId)).toEqual([
        'page-0-c',
        'page-1-a',
      ])
      expect(await repository.listAfter(expected.at(-1), 5)).toEqual([])
    })

    it('pages through rows written by SQL outside the service alike', async () => {
      await isolated.exec('delete from todo')
      const finished = target.name === 'sqlite' ? '0' : 'false'
      await isolated.exec(
        `insert into todo (todo_id, todo_title, finished, created_at) values
           ('sql-b', 'b', ${finished}, '2050-06-01T12:00:00.500Z'),
           ('sql-a', 'a', ${finished}, '2050-06-01T12:00:00.500Z'),
           ('sql-c', 'c', ${finished}, '2050-06-01T12:00:00.501Z')`,
      )
      const [first, ...rest] = await listAll(1)
      expect(first).toEqual({
        todoId: 'sql-a',
        todoTitle: 'a',
        finished: false,
        createdAt: '2050-06-01T12:00:00.500Z',
      })
      expect(rest.map((todo) => todo.todoId)).toEqual(['sql-b', 'sql-c'])
    })

    it('reads a time stamp written by SQL in another form as the instant it names', async () => {
      await isolated.exec('delete from todo')
      // PostgreSQL's text of the years it does not format itself, SQLite's text as written.
      const written =
        target.name === 'sqlite'
          ? ['2050-06-01T12:00:00.5Z', '0001-01-01T00:00:00.000Z', '+010000-01-01T00:00:00Z']
          : ['2050-06-01 17:30:00.5+05:30', '0001-01-01T00:00:00Z', '10000-01-01T00:00:00Z']
      const values = written.map((stamp, index) => `('form-${index}', 't', false, '${stamp}')`)
      await isolated.exec(
        `insert into todo (todo_id, todo_title, finished, created_at) values ${values.join(', ')}`,
      )
      const readBy = (reader: KyselyTodoRepository) =>
        Promise.all(written.map((_, index) => reader.findById(`form-${index}`)))
      const expected = [
        '2050-06-01T12:00:00.500Z',
        '0001-01-01T00:00:00.000Z',
        '+010000-01-01T00:00:00.000Z',
      ]
      expect((await readBy(repository)).map((todo) => todo?.createdAt)).toEqual(expected)
      // PostgreSQL writes its own text in the session's TimeZone; the answer does not move.
      const { config } = isolated
      if (config.kind !== 'postgres') return
      const url = new URL(config.url)
      url.searchParams.set(
        'options',
        `${url.searchParams.get('options') ?? ''} -c TimeZone=Asia/Kolkata`,
      )
      const elsewhere = await openDatabase({ ...config, url: url.toString() })
      try {
        const read = await readBy(new KyselyTodoRepository(elsewhere))
        expect(read.map((todo) => todo?.createdAt)).toEqual(expected)
      } finally {
        await elsewhere.close()
      }
    })

    it('never answers a stamp before year 1 as a year of our era: the read fails', async () => {
      // What each database holds for 15 March 44 BC, written by hand: the service writes none.
      const stamp =
        target.name === 'sqlite' ? '0044-03-15 00:00:00+00 BC' : '0044-03-15T00:00:00Z BC'
      await isolated.exec(
        `insert into todo (todo_id, todo_title, finished, created_at) values ('bc', 't', false, '${stamp}')`,
      )
      await expect(repository.findById('bc')).rejects.toThrow(RangeError)
    })

    it('refuses a second Todo with the same id (primary key)', async () => {
      const todo = newTodo()
      await repository.insert(todo)
      await expect(repository.insert(todo)).rejects.toMatchObject({ name: 'UniqueViolationError' })
    })

    // SQLite runs a lookup at once while its one connection is free (sqlite/direct-reads.ts):
    // never while a transaction holds it, which would show the transaction's own writes.
    it('never shows a read the writes of a transaction still open, nor of one rolled back', async () => {
      const todo = newTodo()
      let written!: () => void
      const writtenInTransaction = new Promise<void>((resolve) => {
        written = resolve
      })
      let finish!: () => void
      const finished = new Promise<void>((resolve) => {
        finish = resolve
      })
      const transaction = database.db.transaction().execute(async (trx) => {
        await repository.inTransaction(trx).insert(todo)
        written()
        await finished
        throw new Error('rolled back')
      })
      await writtenInTransaction
      let answered = false
      const read = repository.findById(todo.todoId).finally(() => {
        answered = true
      })
      await new Promise((resolve) => setTimeout(resolve, 20))
      if (target.name === 'sqlite') expect(answered).toBe(false)
      finish()
      await expect(transaction).rejects.toThrow('rolled back')
      expect(await read).toBeUndefined()
      expect(await repository.findById(todo.todoId)).toBeUndefined()
    })
  })
}
