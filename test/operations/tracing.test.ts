import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASES, type IsolatedDatabase } from '../helpers/databases.js'
import { memberCreateBody } from '../helpers/members.js'
import {
  type OtlpReceiver,
  type ReceivedSpan,
  SPAN_KIND,
  startOtlpReceiver,
} from '../helpers/otlp-receiver.js'
import { type ServerProcess, startServerProcess } from '../helpers/process.js'

const PROCESS_TEST = 60_000

/** A W3C traceparent of a caller's own span, sampled. */
function traceparent() {
  const traceId = randomBytes(16).toString('hex')
  const parentId = randomBytes(8).toString('hex')
  return { traceId, parentId, header: `00-${traceId}-${parentId}-01` }
}

/** The spans of one trace once its request span has arrived (the exporter batches). */
async function traceOf(
  receiver: OtlpReceiver,
  traceId: string,
  server: string,
): Promise<ReceivedSpan[]> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const spans = receiver.spans.filter((span) => span.traceId === traceId)
    if (spans.some((span) => span.name === server)) {
      await sleep(300)
      return receiver.spans.filter((span) => span.traceId === traceId)
    }
    if (Date.now() > deadline) throw new Error(`no span ${server} in trace ${traceId}`)
    await sleep(50)
  }
}

/** The `request completed` log line of the request with this X-Track (logs are written asynchronously). */
async function logLineOf(server: ServerProcess, track: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 5000
  for (;;) {
    const line = server.stdoutLines
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find((entry) => entry.msg === 'request completed' && entry.track === track)
    if (line) return line
    if (Date.now() > deadline) throw new Error(`no log line for ${track}`)
    await sleep(20)
  }
}

/** Every span's ancestors reach the request span: the tree hangs together. */
function descendsFrom(
  spans: readonly ReceivedSpan[],
  span: ReceivedSpan,
  root: ReceivedSpan,
): boolean {
  let current: ReceivedSpan | undefined = span
  for (let depth = 0; current && depth < 20; depth += 1) {
    if (current.spanId === root.spanId) return true
    const parentId: string = current.parentSpanId
    current = spans.find((candidate) => candidate.spanId === parentId)
  }
  return false
}

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`OpenTelemetry traces on ${target.name}`, () => {
    let receiver: OtlpReceiver
    let database: IsolatedDatabase
    let server: ServerProcess

    beforeAll(async () => {
      receiver = await startOtlpReceiver()
      database = await target.create()
      server = await startServerProcess(database.config, {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'todo-member-api-under-test',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      })
    }, PROCESS_TEST)
    afterAll(async () => {
      server?.kill('SIGTERM')
      await server?.exited
      await receiver?.close()
      await database?.drop()
    })

    const personal = ['Tracey', 'Spanner', 'tracey.spanner@example.com', 'password-123']
    const expectNoPersonalData = (spans: readonly ReceivedSpan[]) => {
      const text = JSON.stringify(spans.map((span) => [span.name, span.attributes]))
      for (const value of personal) expect(text).not.toContain(value)
    }

    it(
      'traces a member create: SERVER span with the route, continuing the caller, queries and the hash beneath',
      async () => {
        const caller = traceparent()
        const created = await server.request('POST', '/api/v1/members', {
          headers: { traceparent: caller.header },
          body: memberCreateBody('Tracey', 'Spanner', 'tracey.spanner@example.com'),
        })
        expect(created.status).toBe(201)
        const spans = await traceOf(receiver, caller.traceId, 'POST /api/v1/members')
        const request = spans.find((span) => span.name === 'POST /api/v1/members') as ReceivedSpan
        expect(request.kind).toBe(SPAN_KIND.server)
        expect(request.parentSpanId).toBe(caller.parentId)
        expect(request.attributes).toMatchObject({
          'http.route': '/api/v1/members',
          'http.request.method': 'POST',
          'http.response.status_code': 201,
          'url.path': '/api/v1/members',
        })
        expect(request.resource['service.name']).toBe('todo-member-api-under-test')

        const queries = spans.filter((span) => span.kind === SPAN_KIND.client)
        expect(queries.map((span) => span.name)).toEqual(expect.arrayContaining(['INSERT']))
        for (const query of queries) {
          expect(query.attributes['db.system.name']).toBe(
            target.name === 'sqlite' ? 'sqlite' : 'postgresql',
          )
          expect(String(query.attributes['db.query.text'])).toMatch(
            /^(insert|select|update|delete|with)/i,
          )
          expect(descendsFrom(spans, query, request)).toBe(true)
        }
        const hash = spans.find((span) => span.name === 'argon2id hash password') as ReceivedSpan
        expect(hash).toBeDefined()
        expect(descendsFrom(spans, hash, request)).toBe(true)
        expectNoPersonalData(spans)

        // The request's log line carries the trace id next to its track.
        const line = await logLineOf(server, String(created.headers['x-track']))
        expect(line.trace_id).toBe(caller.traceId)
      },
      PROCESS_TEST,
    )

    it(
      'traces a search without the searched name: the route, not the query string',
      async () => {
        const caller = traceparent()
        const found = await server.request('GET', '/api/v1/members?name=Tracey&size=5', {
          headers: { traceparent: caller.header },
        })
        expect(found.status).toBe(200)
        const spans = await traceOf(receiver, caller.traceId, 'GET /api/v1/members')
        const request = spans.find((span) => span.name === 'GET /api/v1/members') as ReceivedSpan
        expect(request.attributes['url.path']).toBe('/api/v1/members')
        expect(request.attributes['http.route']).toBe('/api/v1/members')
        const selects = spans.filter(
          (span) => span.kind === SPAN_KIND.client && span.name === 'SELECT',
        )
        expect(selects.length).toBeGreaterThanOrEqual(1)
        expectNoPersonalData(spans)
      },
      PROCESS_TEST,
    )

    it(
      'traces a failed request with its status, and starts a new trace without a traceparent',
      async () => {
        const failed = await server.request('POST', '/api/v1/todos', { body: { todoTitle: '' } })
        expect(failed.status).toBe(400)
        const line = await logLineOf(server, String(failed.headers['x-track']))
        const traceId = String(line.trace_id)
        expect(traceId).toMatch(/^[0-9a-f]{32}$/)
        const spans = await traceOf(receiver, traceId, 'POST /api/v1/todos')
        const request = spans.find((span) => span.name === 'POST /api/v1/todos') as ReceivedSpan
        expect(request.kind).toBe(SPAN_KIND.server)
        expect(request.parentSpanId).toBe('')
        expect(request.attributes['http.response.status_code']).toBe(400)
        // Validation refused it: nothing reached the database.
        expect(
          spans.filter((span) => span.kind === SPAN_KIND.client && span.name === 'INSERT'),
        ).toEqual([])
      },
      PROCESS_TEST,
    )
  })
}
