import { randomBytes, randomInt } from 'node:crypto'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { loadSqliteDriver } from '../../src/infra/db/sqlite/sqlite-driver.js'
import { DATABASES, type IsolatedDatabase } from '../helpers/databases.js'
import type { HttpResponse } from '../helpers/http.js'
import {
  killLeftoverProcesses,
  type ServerProcess,
  startServerProcess,
} from '../helpers/process.js'

const Sqlite = await loadSqliteDriver()

/**
 * Crash safety: the service process is killed (SIGKILL, no chance to clean up) in the
 * middle of a write load, then started again on the same database. Every create it had
 * answered 201 must still be there, exactly as answered, and the database must take new
 * writes. Requests cut off by the kill fail on the client side and promise nothing.
 */

const KILLS = 3
const LOOPS = 8
/** Of the LOOPS, how many create members (slow: argon2); the others create Todos. */
const MEMBER_LOOPS = 2
const LOAD_MS = { min: 1_500, max: 3_000 }
const VERIFY_CONCURRENCY = 8
const RUN = randomBytes(3).toString('hex')
const CRASH_TEST = { timeout: 60_000 }

interface Created {
  readonly kind: 'todos' | 'members'
  readonly id: string
  /** The body of the 201, as the client received it. */
  readonly body: unknown
}

interface LoadOutcome {
  readonly created: Created[]
  /** Requests that got no answer: the kill cut them off. */
  readonly cutOff: number
  /** Anything but a 201 answered, or a failure before the kill. */
  readonly unexpected: string[]
}

/**
 * Runs LOOPS concurrent create loops against `server` for `loadMs`, then kills
 * it with SIGKILL while their requests are in flight, and waits for every loop to end.
 */
async function loadUntilKilled(
  server: ServerProcess,
  cycle: number,
  loadMs: number,
): Promise<LoadOutcome> {
  const created: Created[] = []
  const unexpected: string[] = []
  let cutOff = 0
  let killed = false

  const loop = async (loopIndex: number) => {
    const kind = loopIndex < MEMBER_LOOPS ? 'members' : 'todos'
    for (let iteration = 0; !killed; iteration += 1) {
      const tag = `${cycle}.${loopIndex}.${iteration}`
      const body =
        kind === 'todos'
          ? { todoTitle: `Crash ${tag}` }
          : {
              firstName: 'Crash',
              lastName: `Test${tag}`,
              genderCode: '2',
              dateOfBirth: '1999-09-09',
              emailAddress: `crash.${RUN}.${tag}@example.com`,
              credential: { password: 'Crash-Pa55word' },
            }
      let response: HttpResponse
      try {
        response = await server.request('POST', `/api/v1/${kind}`, { body })
      } catch (error) {
        if (killed) cutOff += 1
        else unexpected.push(`${kind} ${tag}: ${String(error)}`)
        continue
      }
      const id = (response.body as Record<string, unknown> | undefined)?.[
        kind === 'todos' ? 'todoId' : 'memberId'
      ]
      if (response.status !== 201 || typeof id !== 'string') {
        unexpected.push(`${kind} ${tag}: ${response.status} ${response.text}`)
        continue
      }
      const location = new URL(response.headers.location ?? '', server.baseUrl)
      if (location.pathname !== `/api/v1/${kind}/${id}`) {
        unexpected.push(`${kind} ${tag}: Location ${response.headers.location}`)
      }
      created.push({ kind, id, body: response.body })
    }
  }

  const loops = Array.from({ length: LOOPS }, (_, index) => loop(index))
  await new Promise((resolve) => setTimeout(resolve, loadMs))
  killed = true
  server.kill('SIGKILL')
  const exit = await server.exited
  await Promise.all(loops)
  expect(exit).toEqual({ code: null, signal: 'SIGKILL' })
  return { created, cutOff, unexpected }
}

/** Reads every created resource through `server`; returns those not answered as created. */
async function unreadable(server: ServerProcess, created: readonly Created[]): Promise<string[]> {
  const problems: string[] = []
  let next = 0
  const worker = async () => {
    while (next < created.length) {
      const item = created[next] as Created
      next += 1
      const read = await server.request('GET', `/api/v1/${item.kind}/${item.id}`)
      if (read.status !== 200) {
        problems.push(`${item.kind}/${item.id}: ${read.status} ${read.text}`)
      } else if (JSON.stringify(read.body) !== JSON.stringify(item.body)) {
        problems.push(`${item.kind}/${item.id}: ${read.text} != ${JSON.stringify(item.body)}`)
      }
    }
  }
  await Promise.all(Array.from({ length: VERIFY_CONCURRENCY }, worker))
  return problems
}

/** The database answers and takes a new Todo and a new Member. */
async function expectHealthy(server: ServerProcess, label: string): Promise<void> {
  expect((await server.request('GET', '/health/ready')).status).toBe(200)
  const todo = await server.request('POST', '/api/v1/todos', {
    body: { todoTitle: `After ${label}` },
  })
  expect(todo.status).toBe(201)
  const member = await server.request('POST', '/api/v1/members', {
    body: {
      firstName: 'After',
      lastName: 'Crash',
      genderCode: '0',
      dateOfBirth: '2000-01-01',
      emailAddress: `after.${RUN}.${label}@example.com`,
      credential: { password: 'Crash-Pa55word' },
    },
  })
  expect(member.status).toBe(201)
  const todoId = (todo.body as { todoId: string }).todoId
  expect((await server.request('GET', `/api/v1/todos/${todoId}`)).body).toEqual(todo.body)
}

/** SQLite's own consistency check of the file (with the service stopped). */
function sqliteIntegrity(file: string): string {
  const db = new Sqlite(file, { readonly: true, fileMustExist: true })
  try {
    return String(db.pragma('integrity_check', { simple: true }))
  } finally {
    db.close()
  }
}

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Crash safety on ${target.name}`, () => {
    let database: IsolatedDatabase | undefined

    afterEach(async () => {
      await killLeftoverProcesses()
    })
    afterAll(async () => {
      await killLeftoverProcesses()
      await database?.drop()
    })

    it(
      `keeps every create answered 201 across ${KILLS} SIGKILLs under a write load`,
      CRASH_TEST,
      async () => {
        database = await target.create()
        const config = database.config
        const answered: Created[] = []
        let cutOff = 0
        let server = await startServerProcess(config)

        for (let cycle = 1; cycle <= KILLS; cycle += 1) {
          const loadMs = randomInt(LOAD_MS.min, LOAD_MS.max + 1)
          const outcome = await loadUntilKilled(server, cycle, loadMs)
          expect(outcome.unexpected, `cycle ${cycle}`).toEqual([])
          expect(outcome.created.length, `cycle ${cycle}: no create answered`).toBeGreaterThan(0)
          expect(
            outcome.created.some(({ kind }) => kind === 'members'),
            `cycle ${cycle}: no member create answered`,
          ).toBe(true)
          answered.push(...outcome.created)
          cutOff += outcome.cutOff

          // Same database, new process: everything answered so far, in every cycle, is there.
          server = await startServerProcess(config)
          expect(await unreadable(server, answered), `after kill ${cycle}`).toEqual([])
          await expectHealthy(server, `kill${cycle}`)
        }
        // The kills came while requests were in flight.
        expect(cutOff).toBeGreaterThan(0)

        server.kill('SIGTERM')
        expect(await server.exited).toEqual({ code: 0, signal: null })
        if (config.kind === 'sqlite') expect(sqliteIntegrity(config.file)).toBe('ok')

        const members = answered.filter(({ kind }) => kind === 'members').length
        console.log(
          `crash safety on ${target.name}: ${KILLS} kills, ${answered.length} creates answered 201 ` +
            `(${answered.length - members} todos, ${members} members), ${cutOff} requests cut off, ` +
            'all readable after restart',
        )
      },
    )
  })
}
