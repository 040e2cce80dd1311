import { randomBytes } from 'node:crypto'
import { Agent } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type IsolatedDatabase, POSTGRES_TARGET } from '../helpers/databases.js'
import { HAS_HAPROXY, type RunningHaproxy, startHaproxy } from '../helpers/haproxy.js'
import { type HttpResponse, http } from '../helpers/http.js'
import { freePort } from '../helpers/ports.js'
import {
  FROM_BUILD,
  killLeftoverProcesses,
  type ServerProcess,
  startServerProcess,
} from '../helpers/process.js'

/**
 * A rolling restart behind a real HAProxy (Debian's, started with deploy/haproxy.cfg as
 * shipped) loses no request: three instances on one PostgreSQL database, steady mixed
 * load through HAProxy, and each instance in turn stopped with SIGTERM, waited for,
 * started again and waited for until ready. HAProxy runs with RETRIES=0, so no failure
 * is hidden by its retries: what passes is the instances' drain (SHUTDOWN_DRAIN).
 * ROLLING_DRAIN_MS=0 runs the same test without the drain, to watch it fail.
 */

const hasHaproxy = HAS_HAPROXY
const available = POSTGRES_TARGET.available && hasHaproxy
if (!available) {
  console.log(
    `Rolling restart behind HAProxy: SKIPPED (${
      hasHaproxy ? 'TEST_DATABASE_URL is not set' : 'no /usr/sbin/haproxy: apt-get install haproxy'
    }).`,
  )
}

const INSTANCES = 3
const WORKERS = 6
const LOAD_MS = 32_000
/** HAProxy's check: every 200 ms, out after 2 failures, back after 2 successes. */
const CHECK = { inter: '200ms', fall: '2', rise: '2' }
/** Longer than the check's 2 x 200 ms, with a margin for a loaded machine. */
const DRAIN_MS = Number(process.env.ROLLING_DRAIN_MS ?? 1500)
const RUN = randomBytes(3).toString('hex')

/** One request through the balancer on a keep-alive connection, as a client would send it. */
const send = (agent: Agent, port: number, method: string, path: string, body?: unknown) =>
  http(`http://127.0.0.1:${port}`, method, path, {
    agent,
    timeoutMs: 15_000,
    ...(body !== undefined && { body }),
  })

interface LoadFigures {
  requests: number
  failures: string[]
  serverErrors: number
  longestMs: number
  readonly createdTodos: string[]
}

describe.skipIf(!available)('Rolling restart behind HAProxy on postgres', () => {
  let database: IsolatedDatabase
  const ports: number[] = []
  const instances: ServerProcess[] = []
  let haproxy: RunningHaproxy | undefined
  let frontend = 0

  const startInstance = (port: number) =>
    startServerProcess(
      database.config,
      { PORT: String(port), SHUTDOWN_DRAIN: String(DRAIN_MS), SHUTDOWN_TIMEOUT: '10000' },
      { entry: FROM_BUILD },
    )

  beforeAll(async () => {
    database = await POSTGRES_TARGET.create()
    for (let index = 0; index < INSTANCES; index += 1) ports.push(await freePort())
    for (const port of ports) instances.push(await startInstance(port))
    haproxy = await startHaproxy(
      ports.map((port) => `127.0.0.1:${port}`),
      { RETRIES: '0', CHECK_INTER: CHECK.inter, CHECK_FALL: CHECK.fall, CHECK_RISE: CHECK.rise },
    )
    frontend = haproxy.port
    // Every instance in rotation: each answers through the balancer in turn.
    const agent = new Agent({ keepAlive: false })
    const deadline = Date.now() + 15_000
    for (;;) {
      const answers = await Promise.all(
        ports.map(() => send(agent, frontend, 'GET', '/health/ready').catch(() => undefined)),
      )
      if (answers.every((answer) => answer?.status === 200)) break
      if (Date.now() > deadline) {
        throw new Error(`HAProxy did not come up:\n${haproxy.output.join('\n')}`)
      }
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }, 120_000)

  afterAll(async () => {
    haproxy?.stop()
    await killLeftoverProcesses()
    await database?.drop()
  })

  /** Mixed load until `stop()`: reads, searches, creates and updates, by WORKERS clients. */
  function startLoad(figures: LoadFigures) {
    let running = true
    const agent = new Agent({ keepAlive: true, maxSockets: WORKERS })
    const worker = async (index: number) => {
      const member = await send(agent, frontend, 'POST', '/api/v1/members', {
        firstName: `Roll${index}`,
        lastName: `Restart${RUN}`,
        genderCode: '0',
        dateOfBirth: '1990-01-01',
        emailAddress: `roll.${RUN}.${index}@example.com`,
        credential: { password: 'correct-horse' },
      })
      if (member.status !== 201) throw new Error(`member for worker ${index}: ${member.status}`)
      const memberId = (member.body as { memberId: string }).memberId
      for (let step = 0; running; step += 1) {
        const kind = step % 5
        const started = performance.now()
        let expected = 200
        let answer: HttpResponse
        try {
          if (kind === 0) {
            expected = 201
            answer = await send(agent, frontend, 'POST', '/api/v1/todos', {
              todoTitle: `r${index}.${step}`,
            })
            if (answer.status === 201) {
              figures.createdTodos.push((answer.body as { todoId: string }).todoId)
            }
          } else if (kind === 1) {
            answer = await send(agent, frontend, 'PUT', `/api/v1/members/${memberId}`, {
              memberId,
              firstName: `Roll${index}.${step}`,
              lastName: `Restart${RUN}`,
              genderCode: '0',
              dateOfBirth: '1990-01-01',
              emailAddress: `roll.${RUN}.${index}@example.com`,
            })
          } else if (kind === 2) {
            answer = await send(agent, frontend, 'GET', `/api/v1/members?name=Roll&size=5`)
          } else {
            const ids = figures.createdTodos
            const id = ids.length > 0 ? ids[step % ids.length] : 'none'
            expected = ids.length > 0 ? 200 : 404
            answer = await send(agent, frontend, 'GET', `/api/v1/todos/${id}`)
          }
        } catch (error) {
          figures.requests += 1
          figures.failures.push(`kind ${kind}: ${(error as Error).message}`)
          continue
        }
        figures.requests += 1
        figures.longestMs = Math.max(figures.longestMs, performance.now() - started)
        if (answer.status >= 500) figures.serverErrors += 1
        if (answer.status !== expected) {
          figures.failures.push(`kind ${kind}: ${answer.status} ${answer.text}`)
        }
      }
    }
    const done = Promise.all(Array.from({ length: WORKERS }, (_, index) => worker(index)))
    return {
      stop: async () => {
        running = false
        await done
        agent.destroy()
      },
    }
  }

  it('restarts each instance in turn under load: 0 failed requests, 0 5xx, every 201 readable', async () => {
    const figures: LoadFigures = {
      requests: 0,
      failures: [],
      serverErrors: 0,
      longestMs: 0,
      createdTodos: [],
    }
    const started = Date.now()
    const load = startLoad(figures)
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    const restarts: string[] = []
    for (let index = 0; index < INSTANCES; index += 1) {
      const stopping = instances[index] as ServerProcess
      const stopAt = Date.now()
      stopping.kill('SIGTERM')
      const exit = await stopping.exited
      expect(exit.code, `instance ${index + 1} exit`).toBe(0)
      const next = await startInstance(ports[index] as number)
      instances[index] = next
      // Ready by itself, then in rotation again (HAProxy's rise), before the next one.
      const readyBy = Date.now() + 15_000
      while ((await next.request('GET', '/health/ready')).status !== 200) {
        if (Date.now() > readyBy) throw new Error(`instance ${index + 1} not ready in 15 s`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      restarts.push(`instance ${index + 1}: ${Date.now() - stopAt} ms`)
    }
    const remaining = LOAD_MS - (Date.now() - started)
    if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining))
    await load.stop()
    const loadMs = Date.now() - started

    const agent = new Agent({ keepAlive: true })
    const unreadable: string[] = []
    for (const id of figures.createdTodos) {
      const answer = await send(agent, frontend, 'GET', `/api/v1/todos/${id}`)
      if (answer.status !== 200) unreadable.push(`${id}: ${answer.status}`)
    }
    agent.destroy()

    console.log(
      `rolling restart (SHUTDOWN_DRAIN=${DRAIN_MS} ms, HAProxy retries 0): ` +
        `${figures.requests} requests in ${loadMs} ms through HAProxy, ` +
        `${figures.failures.length} failed, ${figures.serverErrors} 5xx, ` +
        `longest ${Math.round(figures.longestMs)} ms; ${figures.createdTodos.length} todos ` +
        `created, ${unreadable.length} unreadable afterwards; restarts: ${restarts.join(', ')}`,
    )
    expect(loadMs).toBeGreaterThanOrEqual(30_000)
    expect(figures.requests).toBeGreaterThan(1_000)
    expect(figures.failures.slice(0, 10)).toEqual([])
    expect(figures.serverErrors).toBe(0)
    expect(unreadable).toEqual([])
  }, 180_000)
})
