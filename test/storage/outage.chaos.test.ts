import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type IsolatedDatabase, POSTGRES_TARGET } from '../helpers/databases.js'
import type { HttpResponse } from '../helpers/http.js'
import { startServer, type TestServer } from '../helpers/server.js'
import { type TcpProxy, viaProxy } from '../helpers/tcp-proxy.js'
import { pause } from '../helpers/time.js'

/**
 * PostgreSQL going away under load, as the service sees it through a TCP proxy: first
 * stopped (connections dropped, new ones refused), then unreachable (connections that
 * stay open and never answer). Either way every request answers 500 e.ex.fw.9002 within
 * 2 s instead of hanging, /health/ready says 503, and the service serves again by
 * itself within seconds of the database's return, having lost nothing it confirmed.
 */

const LOAD_LOOPS = 8
const HEALTHY_MS = 1500
const OUTAGE_MS = 4000
const ANSWER_WITHIN_MS = 2000
const RECOVER_WITHIN_MS = 5000
const DATA_ACCESS_FAILURE = { code: 'e.ex.fw.9002', message: 'System error occurred.' }

interface Answer {
  readonly at: number
  readonly durationMs: number
  readonly status: number
  readonly body: unknown
  readonly location?: string
  readonly title?: string
}

describe.skipIf(!POSTGRES_TARGET.available)('A database outage under load on postgres', () => {
  let database: IsolatedDatabase | undefined
  let proxy: TcpProxy | undefined
  let server: TestServer | undefined

  beforeAll(async () => {
    database = await POSTGRES_TARGET.create()
    const proxied = await viaProxy(database.config)
    proxy = proxied.proxy
    server = await startServer(proxied.config)
  })
  afterAll(async () => {
    await server?.close()
    await proxy?.close()
    await database?.drop()
  })

  const ready = () => {
    if (!server || !proxy) throw new Error('not started')
    return { server, proxy }
  }

  /** Creates and reads Todos from LOAD_LOOPS loops until `stop` is set; every answer kept. */
  function load(): { answers: Answer[]; stop: () => Promise<void> } {
    const answers: Answer[] = []
    let running = true
    let sequence = 0
    const loops = Array.from({ length: LOAD_LOOPS }, async (_, loop) => {
      let lastLocation: string | undefined
      while (running) {
        const started = Date.now()
        sequence += 1
        const title = `Load ${loop}-${sequence}`
        let response: HttpResponse
        if (lastLocation && sequence % 2 === 0) {
          response = await ready().server.request('GET', new URL(lastLocation).pathname)
        } else {
          response = await ready().server.request('POST', '/api/v1/todos', {
            body: { todoTitle: title },
          })
          if (response.status === 201) lastLocation = String(response.headers.location)
        }
        answers.push({
          at: started,
          durationMs: Date.now() - started,
          status: response.status,
          body: response.body,
          ...(response.status === 201 && { location: String(response.headers.location), title }),
        })
        if (response.status >= 500) await pause(20)
      }
    })
    return {
      answers,
      stop: async () => {
        running = false
        await Promise.all(loops)
      },
    }
  }

  async function readiness(): Promise<{ status: number; durationMs: number }> {
    const started = Date.now()
    const { status } = await ready().server.request('GET', '/health/ready')
    return { status, durationMs: Date.now() - started }
  }

  /** Time from `since` until the first success answer that started after it. */
  function recoveredAfter(answers: readonly Answer[], since: number): number | undefined {
    const first = answers.find(({ at, status }) => at >= since && status < 300)
    return first && first.at + first.durationMs - since
  }

  for (const kind of ['stopped', 'unreachable'] as const) {
    it(`answers 9002 within 2 s while the database is ${kind}, and recovers by itself`, async () => {
      const { proxy } = ready()
      const traffic = load()
      await pause(HEALTHY_MS)

      const outageStart = Date.now()
      if (kind === 'stopped') await proxy.cut()
      else proxy.stall()
      await pause(OUTAGE_MS / 2)
      const duringOutage = await readiness()
      await pause(OUTAGE_MS / 2)
      const outageEnd = Date.now()
      await proxy.restore()
      await pause(RECOVER_WITHIN_MS)
      const afterwards = await readiness()
      await traffic.stop()

      const answers = traffic.answers
      const before = answers.filter(({ at, durationMs }) => at + durationMs < outageStart)
      // Requests that started well inside the outage (those already running when it began
      // may take one timeout longer) and ended before the database came back.
      const inside = answers.filter(
        ({ at, durationMs }) => at >= outageStart + 500 && at + durationMs < outageEnd,
      )
      const failures = answers.filter(({ status }) => status >= 500)
      console.log(
        `outage (${kind}): ${answers.length} requests, ${before.length} before, ${inside.length} during ` +
          `(slowest ${Math.max(...inside.map(({ durationMs }) => durationMs))} ms), ` +
          `ready ${duringOutage.status} in ${duringOutage.durationMs} ms, ` +
          `first success ${recoveredAfter(answers, outageEnd)} ms after the database returned`,
      )

      expect(before.length).toBeGreaterThan(0)
      expect(before.every(({ status }) => status < 300)).toBe(true)
      expect(inside.length).toBeGreaterThan(0)
      for (const answer of inside) {
        expect({ status: answer.status, body: answer.body }).toEqual({
          status: 500,
          body: DATA_ACCESS_FAILURE,
        })
      }
      // No request hangs: whatever it met, it was answered within the bound.
      for (const answer of answers) {
        expect(answer.durationMs).toBeLessThan(ANSWER_WITHIN_MS)
      }
      for (const failure of failures) expect(failure.body).toEqual(DATA_ACCESS_FAILURE)
      expect(duringOutage.status).toBe(503)
      expect(duringOutage.durationMs).toBeLessThan(ANSWER_WITHIN_MS)
      expect(recoveredAfter(answers, outageEnd)).toBeLessThan(RECOVER_WITHIN_MS)
      expect(afterwards.status).toBe(200)

      // Nothing confirmed was lost: every 201 is readable with the title it was given.
      const created = answers.filter(({ status }) => status === 201)
      for (const { location, title } of created) {
        const read = await ready().server.request('GET', new URL(String(location)).pathname)
        expect({
          status: read.status,
          title: (read.body as { todoTitle?: string }).todoTitle,
        }).toEqual({
          status: 200,
          title,
        })
      }
    })
  }
})
