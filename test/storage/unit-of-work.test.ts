import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IdempotencyRepository } from '../../src/domain/idempotency/repository.js'
import type { Database } from '../../src/infra/db/create-database.js'
import { KyselyUnitOfWork } from '../../src/infra/db/unit-of-work.js'
import type { Member } from '../../src/resources/member/domain/model.js'
import type { MemberRepository } from '../../src/resources/member/domain/repository.js'
import type { Todo } from '../../src/resources/todo/domain/model.js'
import type { TodoRepository } from '../../src/resources/todo/domain/repository.js'
import { DATABASES, type IsolatedDatabase, openDatabase } from '../helpers/databases.js'
import { repositoriesOf } from '../helpers/repositories.js'

/**
 * The unit of work the domain is offered: one transaction on each database, whose
 * repositories commit together or roll back together, without nesting transactions.
 */

/** Repositories of two resources and the service's own, in one transaction. */
interface Scope {
  readonly todos: TodoRepository
  readonly members: MemberRepository
  readonly idempotency: IdempotencyRepository
}

const T0 = '2026-01-01T00:00:00.000Z'
/** The same instant as the idempotency keys take it. */
const CLAIMED_AT = new Date(T0)
const OUTCOME = { status: 201, body: '{"kept":true}', location: null, etag: '"1"' }

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`KyselyUnitOfWork on ${target.name}`, () => {
    let isolated: IsolatedDatabase
    let database: Database
    let repositories: ReturnType<typeof repositoriesOf>
    let unitOfWork: KyselyUnitOfWork<Scope>
    let sequence = 0

    beforeAll(async () => {
      isolated = await target.create()
      database = await openDatabase(isolated.config)
      repositories = repositoriesOf(database)
      unitOfWork = new KyselyUnitOfWork(database.db, repositories)
    })
    afterAll(async () => {
      await database?.close()
      await isolated?.drop()
    })

    function newTodo(): Todo {
      sequence += 1
      return {
        todoId: `00000000-0000-7000-8000-${String(sequence).padStart(12, '0')}`,
        todoTitle: `todo ${sequence}`,
        finished: false,
        createdAt: T0,
      }
    }

    function newMember(): Member {
      sequence += 1
      return {
        memberId: `U${String(sequence).padStart(9, '0')}`,
        firstName: 'Unit',
        lastName: 'Work',
        genderCode: '0',
        dateOfBirth: '1990-01-01',
        emailAddress: `uow${sequence}@example.com`,
        telephoneNumber: null,
        zipCode: null,
        address: null,
        credential: {
          signId: `uow${sequence}@example.com`,
          passwordHash: 'not-a-real-hash',
          passwordLastChangedAt: T0,
          lastModifiedAt: T0,
        },
        createdAt: T0,
        lastModifiedAt: T0,
        version: 1,
      }
    }

    async function claimed(key: string): Promise<void> {
      expect(await repositories.idempotency.claim(key, 'hash', CLAIMED_AT)).toBe(true)
    }

    it('commits every write of the work when it resolves, and passes its result on', async () => {
      const todo = newTodo()
      const member = newMember()
      await claimed(`commit-${sequence}`)
      const key = `commit-${sequence}`
      const result = await unitOfWork.run(async (scope) => {
        await scope.todos.insert(todo)
        expect(await scope.members.insert(member)).toBe('inserted')
        // The scope reads its own writes (with the statements compiled outside it).
        expect(await scope.todos.findById(todo.todoId)).toEqual(todo)
        expect(await scope.members.findById(member.memberId)).toEqual(member)
        return scope.idempotency.complete(key, CLAIMED_AT, OUTCOME)
      })
      expect(result).toBe(true)
      expect(await repositories.todos.findById(todo.todoId)).toEqual(todo)
      expect(await repositories.members.findById(member.memberId)).toEqual(member)
      expect((await repositories.idempotency.find(key))?.outcome).toEqual(OUTCOME)
    })

    // The member insert opens no transaction of its own in a scope (Kysely cannot nest
    // them): its rows go with the scope's.
    it('rolls every write back when the work throws, and passes the error on', async () => {
      const todo = newTodo()
      const member = newMember()
      const key = `rollback-${sequence}`
      await claimed(key)
      const failing = unitOfWork.run(async (scope) => {
        await scope.todos.insert(todo)
        expect(await scope.members.insert(member)).toBe('inserted')
        expect(await scope.idempotency.complete(key, CLAIMED_AT, OUTCOME)).toBe(true)
        throw new Error('after the writes')
      })
      await expect(failing).rejects.toThrow('after the writes')
      expect(await repositories.todos.findById(todo.todoId)).toBeUndefined()
      expect(await repositories.members.findById(member.memberId)).toBeUndefined()
      expect((await repositories.idempotency.find(key))?.outcome).toBeUndefined()
    })

    it('reports a claim that is gone: the outcome write touches no row', async () => {
      const key = `gone-${sequence}`
      await claimed(key)
      const later = new Date(CLAIMED_AT.getTime() + 1)
      expect(await unitOfWork.run((scope) => scope.idempotency.complete(key, later, OUTCOME))).toBe(
        false,
      )
      expect((await repositories.idempotency.find(key))?.outcome).toBeUndefined()
    })
  })
}
