import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONFLICT, memberNotFound } from '../helpers/api-errors.js'
import { DATABASES, type IsolatedDatabase } from '../helpers/databases.js'
import type { HttpOptions, HttpResponse } from '../helpers/http.js'
import { type MemberBody, memberCreateBody, updateBody } from '../helpers/members.js'
import {
  killLeftoverProcesses,
  type ServerProcess,
  startServerProcess,
} from '../helpers/process.js'
import { pause } from '../helpers/time.js'

/**
 * Two server processes on one PostgreSQL schema, as behind a load balancer: migrations
 * run once, each sees the other's writes, and optimistic locking holds across them.
 */

const PROCESS_TEST = { timeout: 60_000 }
const PARALLEL_UPDATES = 40
const PARALLEL_CREATES = 16
const RACE_ROUNDS = 6
const RUN = randomBytes(3).toString('hex')

interface TodoBody {
  todoId: string
  todoTitle: string
  finished: boolean
  createdAt: string
}

const postgres = DATABASES.find(({ name }) => name === 'postgres')

describe.skipIf(!postgres?.available)('Two server processes on one postgres schema', () => {
  let database: IsolatedDatabase | undefined
  let servers: { a: ServerProcess; b: ServerProcess } | undefined
  let sequence = 0

  const ready = () => {
    if (database === undefined || servers === undefined) throw new Error('not started yet')
    return { database, ...servers }
  }
  const call = (server: ServerProcess, method: string, path: string, options?: HttpOptions) =>
    server.request(method, `/api/v1${path}`, options)

  async function createMember(server: ServerProcess, firstName: string): Promise<MemberBody> {
    sequence += 1
    const response = await call(server, 'POST', '/members', {
      body: memberCreateBody(firstName, 'Twin', `twin${sequence}@example.com`),
    })
    expect(response.status).toBe(201)
    expect(response.headers.etag).toBe('"1"')
    return response.body as MemberBody
  }

  function expectMember(response: HttpResponse, etag: string, member: MemberBody) {
    expect({ status: response.status, etag: response.headers.etag }).toEqual({
      status: 200,
      etag,
    })
    expect(response.body).toEqual(member)
  }

  beforeAll(async () => {
    if (!postgres) return
    database = await postgres.create()
    const config = database.config
    const [a, b] = await Promise.all([startServerProcess(config), startServerProcess(config)])
    servers = { a, b }
  })
  afterAll(async () => {
    await killLeftoverProcesses()
    await database?.drop()
  })

  it(
    'both start on a fresh schema and apply each migration exactly once',
    PROCESS_TEST,
    async () => {
      const { database, a, b } = ready()
      expect((await a.request('GET', '/health/ready')).status).toBe(200)
      expect((await b.request('GET', '/health/ready')).status).toBe(200)
      if (database.config.kind !== 'postgres') throw new Error('expected PostgreSQL')
      const client = new pg.Client({ connectionString: database.directUrl })
      await client.connect()
      try {
        const { rows } = await client.query<{ name: string }>(
          'select name from kysely_migration order by name',
        )
        expect(rows.map(({ name }) => name)).toEqual([
          '0001-create-todo',
          '0002-create-member',
          '0003-create-idempotency-key',
          '0004-member-search-indexes',
        ])
      } finally {
        await client.end()
      }
    },
  )

  it(
    'a member created through A is read, updated and deleted through B, and A sees each step',
    PROCESS_TEST,
    async () => {
      const { a, b } = ready()
      const created = await createMember(a, 'Alpha')
      const path = `/members/${created.memberId}`

      const readByB = await call(b, 'GET', path)
      expectMember(readByB, '"1"', created)
      const readCreated = readByB.body as MemberBody

      const updated = await call(b, 'PUT', path, {
        headers: { 'if-match': '"1"' },
        body: updateBody(readCreated, { firstName: 'Bravo' }),
      })
      expect({ status: updated.status, etag: updated.headers.etag }).toEqual({
        status: 200,
        etag: '"2"',
      })
      expect((updated.body as MemberBody).firstName).toBe('Bravo')
      const readByA = await call(a, 'GET', path)
      expectMember(readByA, '"2"', updated.body as MemberBody)

      expect((await call(b, 'DELETE', path)).status).toBe(204)
      for (const server of [a, b]) {
        const gone = await call(server, 'GET', path)
        expect({ status: gone.status, body: gone.body }).toEqual({
          status: 404,
          body: {
            code: 'e.ex.mm.5001',
            message: `Specified member not found. member id : ${created.memberId}`,
          },
        })
      }
    },
  )

  it('a stale If-Match through B after an update through A gives 412', PROCESS_TEST, async () => {
    const { a, b } = ready()
    const member = await createMember(a, 'Stale')
    const path = `/members/${member.memberId}`
    const first = await call(a, 'PUT', path, {
      headers: { 'if-match': '"1"' },
      body: updateBody(member, { firstName: 'Fresh' }),
    })
    expect({ status: first.status, etag: first.headers.etag }).toEqual({ status: 200, etag: '"2"' })

    const stale = await call(b, 'PUT', path, {
      headers: { 'if-match': '"1"' },
      body: updateBody(member, { firstName: 'Late' }),
    })
    expect({ status: stale.status, body: stale.body }).toEqual({ status: 412, body: CONFLICT })
    expectMember(await call(b, 'GET', path), '"2"', first.body as MemberBody)
  })

  it(
    `loses none of ${PARALLEL_UPDATES} parallel updates alternating between A and B`,
    PROCESS_TEST,
    async () => {
      const { a, b } = ready()
      const member = await createMember(a, 'Racer')
      const path = `/members/${member.memberId}`
      const responses = await Promise.all(
        Array.from({ length: PARALLEL_UPDATES }, (_, index) =>
          call(index % 2 === 0 ? a : b, 'PUT', path, {
            body: updateBody(member, { firstName: `Writer${index}` }),
          }),
        ),
      )
      const succeeded = responses.filter(({ status }) => status === 200)
      for (const response of responses.filter(({ status }) => status !== 200)) {
        expect({ status: response.status, body: response.body }).toEqual({
          status: 409,
          body: CONFLICT,
        })
      }
      expect(succeeded.length).toBeGreaterThanOrEqual(1)
      // Every success wrote its own version: 2, 3, ... 1 + successes, none twice.
      const versions = succeeded.map((response) => Number(JSON.parse(response.headers.etag ?? '')))
      expect([...versions].sort((x, y) => x - y)).toEqual(
        Array.from({ length: succeeded.length }, (_, index) => index + 2),
      )
      for (const server of [a, b]) {
        const current = await call(server, 'GET', path)
        expect(current.headers.etag).toBe(`"${1 + succeeded.length}"`)
        const last = succeeded.find((response) => response.headers.etag === current.headers.etag)
        expect(current.body).toEqual(last?.body)
      }
    },
  )

  it(
    'a Todo created through A is finished through B; finishing again through A gives 409',
    PROCESS_TEST,
    async () => {
      const { a, b } = ready()
      const created = await call(a, 'POST', '/todos', { body: { todoTitle: 'Across instances' } })
      expect(created.status).toBe(201)
      const todo = created.body as TodoBody

      const finished = await call(b, 'PUT', `/todos/${todo.todoId}`)
      expect({ status: finished.status, etag: finished.headers.etag, body: finished.body }).toEqual(
        {
          status: 200,
          etag: '"2"',
          body: { ...todo, finished: true },
        },
      )

      const again = await call(a, 'PUT', `/todos/${todo.todoId}`)
      expect({ status: again.status, body: again.body }).toEqual({
        status: 409,
        body: {
          code: 'e.ex.td.8001',
          message: `Specified todo is already finished. todo id : ${todo.todoId}`,
        },
      })
      expect((await call(a, 'GET', `/todos/${todo.todoId}`)).body).toEqual({
        ...todo,
        finished: true,
      })
    },
  )

  it(
    `lets exactly one of ${PARALLEL_CREATES} parallel creates with one sign id, split between A and B, win`,
    PROCESS_TEST,
    async () => {
      const { a, b } = ready()
      const signId = `split.${RUN}@example.com`
      const firstName = `Split${RUN}`
      const responses = await Promise.all(
        Array.from({ length: PARALLEL_CREATES }, (_, index) =>
          call(index % 2 === 0 ? a : b, 'POST', '/members', {
            body: {
              firstName,
              lastName: 'Twin',
              genderCode: '0',
              dateOfBirth: '1979-12-31',
              emailAddress: `split${index}.${RUN}@example.com`,
              credential: { signId, password: 'password-123' },
            },
          }),
        ),
      )
      const statuses = responses.map(({ status }) => status)
      expect(statuses.filter((status) => status === 201)).toHaveLength(1)
      for (const response of responses.filter(({ status }) => status !== 201)) {
        expect({ status: response.status, body: response.body }).toEqual({
          status: 409,
          body: {
            code: 'e.ex.mm.8001',
            message: `Cannot use specified sign id. sign id : ${signId}`,
          },
        })
      }
      const winner = responses.find(({ status }) => status === 201)?.body as MemberBody
      expect(winner.credential.signId).toBe(signId)
      for (const server of [a, b]) {
        expectMember(await call(server, 'GET', `/members/${winner.memberId}`), '"1"', winner)
        const search = await call(server, 'GET', `/members?name=${firstName}&unpaged=true`)
        expect({ status: search.status, body: search.body }).toEqual({
          status: 200,
          body: [winner],
        })
      }
    },
  )

  it(
    `an update through A racing a delete through B: never a 5xx, then gone on both (${RACE_ROUNDS} rounds)`,
    PROCESS_TEST,
    async () => {
      const { database, a, b } = ready()
      if (database.config.kind !== 'postgres') throw new Error('expected PostgreSQL')
      const client = new pg.Client({ connectionString: database.directUrl })
      await client.connect()
      try {
        for (let round = 0; round < RACE_ROUNDS; round += 1) {
          const member = await createMember(a, `Race${round}`)
          const path = `/members/${member.memberId}`
          const context = `round ${round}`
          const [put, del] = await Promise.all([
            call(a, 'PUT', path, { body: updateBody(member, { firstName: `Upd${round}` }) }),
            // The delete is the quicker request: hold it back a little in later rounds.
            pause(round % 4).then(() => call(b, 'DELETE', path)),
          ])
          expect([200, 404, 409], `${context}: PUT ${put.text}`).toContain(put.status)
          if (put.status === 200) {
            expect(put.body, context).toEqual({
              ...member,
              firstName: `Upd${round}`,
              lastModifiedAt: (put.body as MemberBody).lastModifiedAt,
            })
          } else {
            expect(put.body, context).toEqual(
              put.status === 404 ? memberNotFound(member.memberId) : CONFLICT,
            )
          }
          expect({ status: del.status, body: del.body }, context).toEqual({
            status: 204,
            body: undefined,
          })
          for (const server of [a, b]) {
            const gone = await call(server, 'GET', path)
            expect({ status: gone.status, body: gone.body }, context).toEqual({
              status: 404,
              body: memberNotFound(member.memberId),
            })
          }
          // No half-deleted member: neither its row nor its credential's remains.
          const { rows } = await client.query<{ members: string; credentials: string }>(
            'select (select count(*) from member where member_id = $1) as members, ' +
              '(select count(*) from member_credential where member_id = $1) as credentials',
            [member.memberId],
          )
          expect(rows, context).toEqual([{ members: '0', credentials: '0' }])
        }
      } finally {
        await client.end()
      }
    },
  )
})
