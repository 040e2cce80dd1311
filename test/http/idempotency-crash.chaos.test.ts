import { randomBytes } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { loadSqliteDriver } from '../../src/infra/db/sqlite/sqlite-driver.js'
import { DATABASES, type IsolatedDatabase } from '../helpers/databases.js'
import type { HttpResponse } from '../helpers/http.js'
import {
  killLeftoverProcesses,
  type ServerProcess,
  startServerProcess,
} from '../helpers/process.js'
import { addTrigger, PAUSE_LOCK } from '../helpers/triggers.js'

const Sqlite = await loadSqliteDriver()

/**
 * Idempotency-Key across crashes (decisions §7): "the same request again creates nothing
 * and gets the original answer", even when the process dies (SIGKILL) in the middle of a
 * create. The create is held still at one step by a trigger, the process is killed
 * there, started again on the same database, and the claim is expired as its lease
 * would expire it. The retry with the same key must then leave exactly one resource and
 * answer 201: created anew when the kill came before the commit, the stored answer
 * replayed when it came after.
 */

const RUN = randomBytes(3).toString('hex')
const CASE = { timeout: 120_000 }
/** The service's database timeout: a statement held still must not give up on its own. */
const SETTINGS = { DB_TIMEOUT: '30000' }
/** SQLite: how long the write lock must stay taken before the service counts as held still. */
const SQLITE_HELD_MS = 300
const WAIT_MS = 20_000
const IN_FLIGHT = {
  code: 'e.ex.fw.8003',
  message: 'A request with the same idempotency key is being processed.',
}

interface Resource {
  readonly path: '/todos' | '/members'
  readonly table: 'todo' | 'member'
  body(tag: string): Record<string, unknown>
  /** SQL condition matching the resource created from `body(tag)`. */
  where(tag: string): string
}

const RESOURCES: readonly Resource[] = [
  {
    path: '/todos',
    table: 'todo',
    body: (tag) => ({ todoTitle: `Kill ${tag}` }),
    where: (tag) => `todo_title = 'Kill ${tag}'`,
  },
  {
    path: '/members',
    table: 'member',
    body: (tag) => ({
      firstName: 'Kill',
      lastName: 'Retry',
      genderCode: '1',
      dateOfBirth: '1970-01-01',
      emailAddress: `kill.${tag}@example.com`,
      credential: { signId: null, password: 'Crash-Pa55word' },
    }),
    where: (tag) => `email_address = 'kill.${tag}@example.com'`,
  },
]

/** Where the process dies. */
type Step = 'after the claim, before the insert' | 'between the insert and the outcome write'

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/**
 * Sends the request and hangs up as soon as it is sent, before any answer: the client
 * never learns the outcome. Resolves once the connection is closed.
 */
function sendAndHangUp(baseUrl: string, path: string, key: string, body: unknown): Promise<void> {
  const payload = JSON.stringify(body)
  return new Promise((resolve) => {
    const req = httpRequest(new URL(path, baseUrl), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
        'idempotency-key': key,
      },
    })
    req.on('error', () => {})
    req.on('close', () => resolve())
    req.on('finish', () => req.destroy())
    req.end(payload)
  })
}

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Idempotency-Key across SIGKILL on ${target.name}`, () => {
    let database: IsolatedDatabase
    let server: ServerProcess
    let sequence = 0
    /** False while a case runs: a case that failed may leave the process held still. */
    let clean = true
    const timings: string[] = []

    beforeAll(async () => {
      database = await target.create()
      server = await startServerProcess(database.config, SETTINGS)
    })
    afterEach(async () => {
      if (clean) return
      await killLeftoverProcesses()
      await letPausedGo()
      await dropPause()
      server = await startServerProcess(database.config, SETTINGS)
      clean = true
    })
    afterAll(async () => {
      await killLeftoverProcesses()
      await database?.drop()
      console.log(`idempotency across SIGKILL on ${target.name}: ${timings.join('; ')}`)
    })

    const post = (path: string, key: string, body: unknown) =>
      server.request('POST', `/api/v1${path}`, { body, headers: { 'idempotency-key': key } })
    const count = async (resource: Resource, tag: string) =>
      Number(
        (
          await database.query<{ n: number | string }>(
            `select count(*) as n from ${resource.table} where ${resource.where(tag)}`,
          )
        )[0]?.n,
      )
    const keyRow = async (key: string) =>
      (
        await database.query<{ status_code: number | null; response_body: string | null }>(
          `select status_code, response_body from idempotency_key where idempotency_key = '${key}'`,
        )
      )[0]
    /** Moves the claim back past its 60 s lease, as if that long had passed. */
    const expireClaim = (key: string) =>
      database.exec(
        `update idempotency_key set created_at = '${new Date(Date.now() - 61_000).toISOString()}' where idempotency_key = '${key}'`,
      )

    /** Makes statements paused by a trigger wait (PostgreSQL: an advisory lock held here). */
    const holdPaused = async () => {
      if (database.config.kind === 'postgres') {
        await database.exec(`select pg_advisory_lock(${PAUSE_LOCK})`)
      }
    }
    const letPausedGo = async () => {
      if (database.config.kind === 'postgres') {
        await database.exec(`select pg_advisory_unlock(${PAUSE_LOCK})`)
      }
    }

    /** Resolves once a statement of the service is held still by the pause trigger. */
    const paused = async () => {
      const config = database.config
      if (config.kind === 'postgres') {
        await until('a statement waiting for the pause lock', async () => {
          const [row] = await database.query<{ n: number | string }>(
            `select count(*) as n from pg_locks where locktype = 'advisory' and objid = ${PAUSE_LOCK} and not granted`,
          )
          return Number(row?.n) > 0 ? true : undefined
        })
        return
      }
      // The trigger runs inside a write: the file's write lock stays taken while it runs
      // (the service takes it only for moments otherwise).
      const probe = new Sqlite(config.file, { timeout: 0 })
      try {
        let takenSince: number | undefined
        await until('the write lock held by the paused statement', async () => {
          try {
            probe.exec('begin immediate')
            probe.exec('rollback')
            takenSince = undefined
          } catch {
            takenSince ??= Date.now()
          }
          return takenSince !== undefined && Date.now() - takenSince >= SQLITE_HELD_MS
            ? true
            : undefined
        })
      } finally {
        probe.close()
      }
    }

    const PAUSE_TRIGGER = 'pause_step'
    const dropPause = () =>
      database.exec(
        database.config.kind === 'sqlite'
          ? `drop trigger if exists ${PAUSE_TRIGGER}`
          : `drop trigger if exists ${PAUSE_TRIGGER} on todo; drop trigger if exists ${PAUSE_TRIGGER} on member; drop trigger if exists ${PAUSE_TRIGGER} on idempotency_key; drop function if exists ${PAUSE_TRIGGER}()`,
      )

    const killAndRestart = async () => {
      server.kill('SIGKILL')
      expect(await server.exited).toEqual({ code: null, signal: 'SIGKILL' })
      server = await startServerProcess(database.config, SETTINGS)
    }

    /** The retry after the lease: one resource, created now; a further retry replays it. */
    const expectRetryCreatesOnce = async (resource: Resource, key: string, tag: string) => {
      const body = resource.body(tag)
      // Within the lease the dead request's claim still counts as being processed.
      const tooSoon = await post(resource.path, key, body)
      expect({ status: tooSoon.status, body: tooSoon.body }).toEqual({
        status: 409,
        body: IN_FLIGHT,
      })
      await expireClaim(key)
      const retry = await post(resource.path, key, body)
      expect(retry.status).toBe(201)
      expect(retry.headers['idempotent-replayed']).toBeUndefined()
      expect(await count(resource, tag)).toBe(1)
      const again = await post(resource.path, key, body)
      expect(again.status).toBe(201)
      expect(again.headers['idempotent-replayed']).toBe('true')
      expect(again.text).toBe(retry.text)
      expect(await count(resource, tag)).toBe(1)
    }

    const steps: readonly Step[] = [
      'after the claim, before the insert',
      'between the insert and the outcome write',
    ]
    for (const resource of RESOURCES) {
      for (const step of steps) {
        it(`POST ${resource.path} killed ${step}: the retry creates it once`, CASE, async () => {
          const started = Date.now()
          clean = false
          sequence += 1
          const tag = `${RUN}.${sequence}`
          const key = `kill-${tag}`
          const dropTrigger = await addTrigger(database, {
            name: PAUSE_TRIGGER,
            ...(step === 'after the claim, before the insert'
              ? { table: resource.table, event: 'insert' as const }
              : { table: 'idempotency_key', event: 'update' as const }),
            action: 'pause',
          })
          await holdPaused()
          const cutOff = post(resource.path, key, resource.body(tag)).then(
            (response: HttpResponse) => `answered ${response.status}`,
            () => 'cut off',
          )
          try {
            await paused()
            // Held still there: the claim is committed, the resource is not.
            expect(await keyRow(key)).toEqual({ status_code: null, response_body: null })
            expect(await count(resource, tag)).toBe(0)
            await killAndRestart()
            expect(await cutOff).toBe('cut off')
          } finally {
            // PostgreSQL: the dead client's transaction goes on, then rolls back.
            await letPausedGo()
            await dropTrigger()
          }
          // The crash left the claim without an outcome, and no resource.
          expect(await keyRow(key)).toEqual({ status_code: null, response_body: null })
          expect(await count(resource, tag)).toBe(0)
          await expectRetryCreatesOnce(resource, key, tag)
          timings.push(`${resource.path} ${step} ${Date.now() - started} ms`)
          clean = true
        })
      }

      it(
        `POST ${resource.path} killed after the commit, the answer lost: the retry replays it`,
        CASE,
        async () => {
          const started = Date.now()
          clean = false
          sequence += 1
          const tag = `${RUN}.${sequence}`
          const key = `kill-${tag}`
          const body = resource.body(tag)
          await sendAndHangUp(server.baseUrl, `/api/v1${resource.path}`, key, body)
          const stored = await until('the outcome committed', async () => {
            const row = await keyRow(key)
            return row?.status_code === null || row === undefined ? undefined : row
          })
          await killAndRestart()

          expect(Number(stored.status_code)).toBe(201)
          expect(await count(resource, tag)).toBe(1)
          const retry = await post(resource.path, key, body)
          expect(retry.status).toBe(201)
          expect(retry.headers['idempotent-replayed']).toBe('true')
          expect(retry.text).toBe(stored.response_body)
          expect(await count(resource, tag)).toBe(1)
          // The replayed answer names the resource as it is stored.
          const location = new URL(retry.headers.location ?? '')
          const read = await server.request('GET', location.pathname)
          expect(read.body).toEqual(retry.body)
          timings.push(`${resource.path} after the commit ${Date.now() - started} ms`)
          clean = true
        },
      )
    }
  })
}
