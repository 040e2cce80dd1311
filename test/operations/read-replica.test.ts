import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPLICA_RETRY_AFTER_MS } from '../../src/infra/db/postgres/replica-reads.js'
import { type IsolatedDatabase, POSTGRES_TARGET } from '../helpers/databases.js'
import { type MemberBody, memberCreateBody, updateBody } from '../helpers/members.js'
import {
  CAN_MAKE_REPLICA,
  type StreamingReplica,
  startStreamingReplica,
} from '../helpers/replica.js'
import { startServer, type TestServer } from '../helpers/server.js'

const available = POSTGRES_TARGET.available && CAN_MAKE_REPLICA
if (!available) {
  console.log(
    `Read replica suite: SKIPPED, ${POSTGRES_TARGET.available ? 'no pg_basebackup (PostgreSQL server packages)' : 'TEST_DATABASE_URL is not set'}`,
  )
}

const DB_TIMEOUT_MS = 1000

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`)
    await sleep(100)
  }
}

/**
 * DATABASE_READ_URL against a real streaming replica (pg_basebackup of the test
 * PostgreSQL, on another port). With the replica's replay paused, what the service reads
 * from it lags visibly: that shows which reads go where.
 */
describe.skipIf(!available)('A read replica for searches on postgres', () => {
  let database: IsolatedDatabase
  let replica: StreamingReplica
  let server: TestServer
  let sequence = 0

  beforeAll(async () => {
    database = await POSTGRES_TARGET.create()
    if (database.config.kind !== 'postgres') throw new Error('expected PostgreSQL')
    replica = await startStreamingReplica(database.directUrl as string)
    // The replica follows the primary, so it reaches the database directly even when the
    // primary is behind PgBouncer; the schema is the suite's own.
    const replicaUrl = replica.urlFor(database.directUrl as string)
    server = await startServer(
      { ...database.config, readUrl: replicaUrl },
      { DB_TIMEOUT: String(DB_TIMEOUT_MS), READY_TIMEOUT: '500' },
    )
    // The service made its tables on the primary; wait until the replica has them.
    await eventually(async () => {
      const [row] = await replica.query<{ tables: string }>(
        `select count(*) as tables from pg_tables where tablename = 'member' and schemaname = current_schema()`,
      )
      return row?.tables === '1'
    }, 'the schema reaches the replica')
  }, 60_000)

  afterAll(async () => {
    await server?.close()
    replica?.remove()
    await database?.drop()
  })

  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    server.request(method, `/api/v1${path}`, {
      ...(body !== undefined && { body }),
      ...(headers && { headers }),
    })

  async function createMember(firstName: string): Promise<MemberBody> {
    sequence += 1
    const response = await call(
      'POST',
      '/members',
      memberCreateBody(firstName, 'Replica', `replica${sequence}@example.com`),
    )
    expect(response.status).toBe(201)
    return response.body as MemberBody
  }

  const searchFinds = async (name: string) => {
    const response = await call('GET', `/members?name=${name}`)
    expect(response.status).toBe(200)
    return (response.body as { content: MemberBody[] }).content.length > 0
  }
  const listHas = async (todoId: string) => {
    const response = await call('GET', '/todos')
    expect(response.status).toBe(200)
    return (response.body as { todoId: string }[]).some((todo) => todo.todoId === todoId)
  }

  it('reports the replica in readiness', async () => {
    const ready = await server.request('GET', '/health/ready')
    expect(ready.status).toBe(200)
    expect(ready.body).toEqual({ status: 'UP', checks: { database: 'UP', replica: 'UP' } })
  })

  it('serves searches and the todo list from the replica, and reads that must see a write from the primary', async () => {
    await replica.pauseReplay()
    try {
      const member = await createMember('Lagging')
      const todo = await call('POST', '/todos', { todoTitle: 'written while the replica lags' })
      expect(todo.status).toBe(201)
      const todoId = (todo.body as { todoId: string }).todoId

      // The replica has not applied them: the searches and the list do not show them yet.
      expect(await searchFinds('Lagging')).toBe(false)
      expect(await listHas(todoId)).toBe(false)
      // A read by id, and a write checked against the ETag, see the write at once.
      const read = await call('GET', `/members/${member.memberId}`)
      expect(read.status).toBe(200)
      expect((await call('GET', `/todos/${todoId}`)).status).toBe(200)
      const update = await call(
        'PUT',
        `/members/${member.memberId}`,
        updateBody(member, { zipCode: '1000001' }),
        { 'If-Match': read.headers.etag as string },
      )
      expect(update.status).toBe(200)
      const [replayed] = await replica.query<{ paused: boolean }>(
        'select pg_is_wal_replay_paused() as paused',
      )
      expect(replayed?.paused).toBe(true)
    } finally {
      await replica.resumeReplay()
    }
    // Once the replica catches up, they appear.
    await eventually(() => searchFinds('Lagging'), 'the search shows the member')
  })

  it('falls back to the primary within DB_TIMEOUT while the replica is down, reports it degraded, and returns to it', async () => {
    await createMember('Fallback')
    await eventually(() => searchFinds('Fallback'), 'the replica has the member')
    replica.stop()
    try {
      const started = Date.now()
      expect(await searchFinds('Fallback')).toBe(true)
      expect(Date.now() - started).toBeLessThan(DB_TIMEOUT_MS)
      const ready = await server.request('GET', '/health/ready')
      expect(ready.status).toBe(200)
      expect(ready.body).toEqual({ status: 'UP', checks: { database: 'UP', replica: 'DEGRADED' } })
      expect(
        server.logs.some((line) => line.msg === 'degraded: the read replica does not answer'),
      ).toBe(true)
      // Reads written meanwhile are there: the primary answers them.
      await createMember('Meanwhile')
      expect(await searchFinds('Meanwhile')).toBe(true)
    } finally {
      replica.start()
    }
    const ready = await server.request('GET', '/health/ready')
    expect(ready.body).toEqual({ status: 'UP', checks: { database: 'UP', replica: 'UP' } })
    // After the pause, searches go to the replica again: with its replay paused, a new
    // member is not found there.
    await sleep(REPLICA_RETRY_AFTER_MS)
    await replica.pauseReplay()
    try {
      await createMember('Returned')
      expect(await searchFinds('Returned')).toBe(false)
    } finally {
      await replica.resumeReplay()
    }
  }, 30_000)
})
