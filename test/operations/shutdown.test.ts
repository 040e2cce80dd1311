import { Agent, type ClientRequest, request as httpRequest } from 'node:http'
import { connect } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { DATABASES, type IsolatedDatabase } from '../helpers/databases.js'
import type { HttpResponse } from '../helpers/http.js'
import { memberCreateBody } from '../helpers/members.js'
import {
  killLeftoverProcesses,
  type ProcessExit,
  type ServerProcess,
  startServerProcess,
} from '../helpers/process.js'
import { openRaw, parseResponses, rawRequest } from '../helpers/raw-http.js'
import { pause } from '../helpers/time.js'

/**
 * Graceful shutdown of the real process (src/server.ts): SIGTERM/SIGINT stop accepting,
 * let requests in flight finish, close the database and exit 0; SHUTDOWN_TIMEOUT bounds
 * the wait (exit 1). Requests pipelined behind the answer in progress are not run, and
 * answers no client takes do not hold the stop up (docs/operations/lifecycle.md#stopping).
 */

const PROCESS_TEST = { timeout: 60_000 }
const BROWSER_ORIGIN = 'https://app.example.com'
const IN_FLIGHT = 12
const STOPPING = 'stopping: finishing requests in flight'
const STOPPED = 'stopped'
const CLOSING_ANYWAY = 'requests still in flight; closing anyway'

interface StartedRequest {
  /** Settles when the server has read the request head (it answered 100 Continue). */
  readonly started: Promise<void>
  /** Sends the body; settles once it is handed to the socket. */
  sendBody(): Promise<void>
  /** The answer; rejects when the connection fails. */
  readonly response: Promise<HttpResponse>
}

/**
 * POSTs `body` as JSON in two steps: the head first, with Expect: 100-continue, so the
 * server's 100 Continue proves it has taken the request up (its connection is no longer
 * idle); then the body, when the test says so. `agent` decides keep-alive.
 */
function startPost(
  baseUrl: string,
  path: string,
  body: unknown,
  agent: Agent | false,
): StartedRequest {
  const payload = JSON.stringify(body)
  let req: ClientRequest | undefined
  const response = new Promise<HttpResponse>((resolve, reject) => {
    req = httpRequest(
      new URL(path, baseUrl),
      {
        method: 'POST',
        agent,
        headers: {
          expect: '100-continue',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            body: text === '' ? undefined : JSON.parse(text),
          })
        })
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.flushHeaders()
  })
  // Failures surface where the test awaits the response, not as unhandled rejections.
  response.catch(() => {})
  const request = req as ClientRequest
  const started = new Promise<void>((resolve, reject) => {
    request.once('continue', () => resolve())
    response.then(
      () => reject(new Error('answered before 100 Continue')),
      (error: unknown) => reject(error),
    )
  })
  started.catch(() => {})
  return {
    started,
    sendBody: () =>
      new Promise<void>((resolve) => {
        request.once('finish', () => resolve())
        request.end(payload)
      }),
    response,
  }
}

/**
 * Puts `count` member creates in flight: every head read by the server, then every body
 * sent. Returns the requests and a function telling how many have been answered so far.
 */
async function membersInFlight(
  server: ServerProcess,
  emailPrefix: string,
  count: number,
  agent: Agent | false,
) {
  const requests = Array.from({ length: count }, (_, index) =>
    startPost(
      server.baseUrl,
      '/api/v1/members',
      memberCreateBody('Shut', 'Down', `${emailPrefix}${index}@example.com`),
      agent,
    ),
  )
  await Promise.all(requests.map(({ started }) => started))
  let answered = 0
  for (const { response } of requests) {
    response.then(
      () => {
        answered += 1
      },
      () => {},
    )
  }
  await Promise.all(requests.map((request) => request.sendBody()))
  return { requests, answered: () => answered }
}

/** The error code of a new TCP connection to `port` (undefined when it connects). */
function connectionError(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(undefined)
    })
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code))
  })
}

/** How a stop ended: the exit, and whether the log says it stopped or closed anyway. */
function stopOutcome(server: ServerProcess, exit: ProcessExit) {
  const messages = server.logMessages()
  return {
    exit,
    stopped: messages.includes(STOPPED),
    closedAnyway: messages.includes(CLOSING_ANYWAY),
  }
}

/** A stop that finished everything in time. */
const CLEAN_STOP = { exit: { code: 0, signal: null }, stopped: true, closedAnyway: false }

/** The parsed JSON log lines whose msg is `msg`. */
function logEntries(server: ServerProcess, msg: string): Record<string, unknown>[] {
  return server.stdoutLines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.msg === msg)
}

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Graceful shutdown of the process on ${target.name}`, () => {
    let database: IsolatedDatabase | undefined
    const ready = (): IsolatedDatabase => {
      if (database === undefined) throw new Error('the suite database is not created yet')
      return database
    }

    beforeAll(async () => {
      database = await target.create()
    })
    afterEach(async () => {
      await killLeftoverProcesses()
    })
    afterAll(async () => {
      await killLeftoverProcesses()
      await database?.drop()
    })

    it(
      `SIGTERM lets ${IN_FLIGHT} requests in flight finish (201 each), exits 0 and loses none`,
      PROCESS_TEST,
      async () => {
        // Twelve password hashes wait for HASH_CONCURRENCY's places: a loaded machine must
        // not turn a wait into a refusal here, where the stop is what is tested.
        const server = await startServerProcess(ready().config, { QUEUE_TIMEOUT: '10000' })
        // One connection per request, closed after its answer (keep-alive: the next test).
        const { requests, answered } = await membersInFlight(server, 's', IN_FLIGHT, false)
        const answeredBeforeSignal = answered()
        server.kill('SIGTERM')

        const responses = await Promise.all(requests.map(({ response }) => response))
        const exit = await server.exited
        // The signal really came while all of them were in flight.
        expect(answeredBeforeSignal).toBe(0)
        expect(responses.map(({ status }) => status)).toEqual(Array(IN_FLIGHT).fill(201))
        expect(exit).toEqual({ code: 0, signal: null })

        const messages = server.logMessages()
        expect(messages).toContain(STOPPING)
        expect(messages).toContain(STOPPED)
        expect(messages).not.toContain(CLOSING_ANYWAY)
        expect(logEntries(server, STOPPING).map(({ signal }) => signal)).toEqual(['SIGTERM'])
        expect(messages.filter((message) => message === 'request completed')).toHaveLength(
          IN_FLIGHT,
        )

        expect(await connectionError(server.port)).toBe('ECONNREFUSED')

        // Nothing in flight was lost: a new process on the same database reads every member.
        const next = await startServerProcess(ready().config)
        const members = responses.map(
          (response) => response.body as { memberId: string; emailAddress: string },
        )
        expect(members.map(({ emailAddress }) => emailAddress).sort()).toEqual(
          Array.from({ length: IN_FLIGHT }, (_, index) => `s${index}@example.com`).sort(),
        )
        for (const member of members) {
          const read = await next.request('GET', `/api/v1/members/${member.memberId}`)
          expect(read.status).toBe(200)
          expect(read.body).toEqual(member)
        }
        next.kill('SIGTERM')
        expect(await next.exited).toEqual({ code: 0, signal: null })
      },
    )

    it(
      'SIGTERM does not wait for keep-alive clients to close connections whose requests finished',
      PROCESS_TEST,
      async () => {
        const server = await startServerProcess(ready().config, { SHUTDOWN_TIMEOUT: '5000' })
        // Like a proxy or load balancer: keeps idle connections open for reuse.
        const agent = new Agent({ keepAlive: true })
        try {
          const { requests, answered } = await membersInFlight(server, 'k', 4, agent)
          const answeredBeforeSignal = answered()
          const signalled = Date.now()
          server.kill('SIGTERM')

          const responses = await Promise.all(requests.map(({ response }) => response))
          const exit = await server.exited
          expect(answeredBeforeSignal).toBe(0)
          expect(responses.map(({ status }) => status)).toEqual([201, 201, 201, 201])
          // Answered, the connections are idle: closing them must not wait for the client.
          expect(stopOutcome(server, exit)).toEqual(CLEAN_STOP)
          expect(Date.now() - signalled).toBeLessThan(5_000)
        } finally {
          agent.destroy()
        }
      },
    )

    it(
      'SHUTDOWN_DRAIN: not ready at once, new connections still served with Connection: close, then exit 0',
      PROCESS_TEST,
      async () => {
        const server = await startServerProcess(ready().config, {
          SHUTDOWN_DRAIN: '1500',
          CORS_ORIGINS: BROWSER_ORIGIN,
        })
        const before = await server.request('GET', '/health/ready')
        expect(before.status).toBe(200)
        expect(before.headers.connection).toBe('keep-alive')
        const signalled = Date.now()
        server.kill('SIGTERM')
        await pause(300)

        const readiness = await server.request('GET', '/health/ready')
        expect(readiness.status).toBe(503)
        expect(readiness.body).toEqual({ status: 'DOWN', checks: { shutdown: 'DRAINING' } })
        // Still serving, on a new connection, and closing each connection after its answer.
        expect(await connectionError(server.port)).toBeUndefined()
        const created = await server.request('POST', '/api/v1/todos', {
          body: { todoTitle: 'during the drain' },
        })
        expect(created.status).toBe(201)
        expect(created.headers.connection).toBe('close')
        expect(readiness.headers.connection).toBe('close')
        // Answers given before the route's own stages close their connection too: the
        // head's checks refusing a request, and a browser's preflight.
        const refusals = [
          await server.request('GET', '/api/v1/todos', { headers: { expect: 'something-else' } }),
          await server.request('GET', '/api/v1/todos', {
            headers: { host: 'not a host' },
            contract: false,
          }),
        ]
        expect(refusals.map(({ status }) => status)).toEqual([417, 400])
        const preflight = await server.request('OPTIONS', '/api/v1/todos', {
          headers: { origin: BROWSER_ORIGIN, 'access-control-request-method': 'POST' },
        })
        expect(preflight.headers['access-control-allow-origin']).toBe(BROWSER_ORIGIN)
        for (const answer of [...refusals, preflight]) {
          expect(answer.headers.connection).toBe('close')
        }
        expect(server.logMessages()).not.toContain(STOPPING)

        const exit = await server.exited
        expect(exit).toEqual({ code: 0, signal: null })
        expect(Date.now() - signalled).toBeGreaterThanOrEqual(1_500)
        const messages = server.logMessages()
        expect(messages.indexOf('draining: not ready, still serving')).toBeLessThan(
          messages.indexOf(STOPPING),
        )
        expect(messages).toContain(STOPPED)
      },
    )

    it('SIGINT stops an idle server the same way: exit 0 within 5 s', PROCESS_TEST, async () => {
      const server = await startServerProcess(ready().config)
      const signalled = Date.now()
      server.kill('SIGINT')
      const exit = await server.exited
      expect(exit).toEqual({ code: 0, signal: null })
      expect(Date.now() - signalled).toBeLessThan(5_000)
      const messages = server.logMessages()
      expect(messages).toContain(STOPPING)
      expect(messages).toContain(STOPPED)
      expect(logEntries(server, STOPPING).map(({ signal }) => signal)).toEqual(['SIGINT'])
      expect(await connectionError(server.port)).toBe('ECONNREFUSED')
    })

    it(
      'SHUTDOWN_TIMEOUT bounds the wait for a request that never completes: exit 1',
      PROCESS_TEST,
      async () => {
        const server = await startServerProcess(ready().config, { SHUTDOWN_TIMEOUT: '200' })
        const socket = connect({ host: '127.0.0.1', port: server.port })
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', resolve)
          socket.once('error', reject)
        })
        let received = ''
        socket.setEncoding('utf8')
        socket.on('data', (chunk: string) => {
          received += chunk
        })
        socket.on('error', () => {})
        const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
        // The head and 24 of the 1000 body bytes announced: the server waits for the rest.
        socket.write(
          'POST /api/v1/todos HTTP/1.1\r\n' +
            `Host: 127.0.0.1:${server.port}\r\n` +
            'Content-Type: application/json\r\n' +
            'Content-Length: 1000\r\n' +
            '\r\n' +
            '{"todoTitle":"never fini',
        )
        await pause(200)

        const signalled = Date.now()
        server.kill('SIGTERM')
        const exit = await server.exited
        const elapsed = Date.now() - signalled
        expect(exit).toEqual({ code: 1, signal: null })
        expect(elapsed).toBeGreaterThanOrEqual(190)
        expect(elapsed).toBeLessThan(2_000)

        const messages = server.logMessages()
        expect(messages).toContain(STOPPING)
        expect(messages).toContain(CLOSING_ANYWAY)
        expect(messages).not.toContain(STOPPED)
        expect(logEntries(server, CLOSING_ANYWAY).map(({ timeoutMs }) => timeoutMs)).toEqual([200])
        // The unfinished request got no answer; its connection was closed.
        await socketClosed
        expect(received).toBe('')
      },
    )

    it(
      'SIGTERM with clients that never read their answers: exit 0 well within SHUTDOWN_TIMEOUT',
      PROCESS_TEST,
      async () => {
        const server = await startServerProcess(ready().config, { SHUTDOWN_TIMEOUT: '5000' })
        // Each pipelines 30 GETs of a 1.7 MB file and takes nothing: its answer waits in
        // the process once the kernel's socket buffers are full.
        const bundle = rawRequest('GET', '/api/docs/static/swagger-ui-bundle.js')
        const clients = Array.from({ length: 10 }, () =>
          openRaw(server.baseUrl, Buffer.concat(Array(30).fill(bundle)), {
            throttle: { bytes: 0, intervalMs: 60_000, untilMs: 60_000 },
            timeoutMs: 60_000,
          }),
        )
        await pause(1000)
        const signalled = Date.now()
        server.kill('SIGTERM')
        const exit = await server.exited
        const elapsed = Date.now() - signalled
        for (const client of clients) client.close()

        expect(stopOutcome(server, exit)).toEqual(CLEAN_STOP)
        // Cut after about a second of taking nothing, not at the deadline.
        expect(elapsed).toBeLessThan(4000)
      },
    )

    it(
      'SIGTERM while a request is in flight: a request pipelined behind it is not run, the connection closes after its answer',
      PROCESS_TEST,
      async () => {
        const server = await startServerProcess(ready().config)
        const socket = connect({ host: '127.0.0.1', port: server.port })
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', resolve)
          socket.once('error', reject)
        })
        const received: Buffer[] = []
        socket.on('data', (chunk: Buffer) => received.push(chunk))
        socket.on('error', () => {})
        const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
        const body = JSON.stringify({ todoTitle: 'in flight at the stop' })
        // The head first: the request is taken up and waits for its body.
        socket.write(
          rawRequest('POST', '/api/v1/todos', {
            headers: { 'Content-Type': 'application/json', 'Content-Length': `${body.length}` },
          }),
        )
        await pause(300)
        server.kill('SIGTERM')
        while (!server.logMessages().includes(STOPPING)) await pause(20)
        // Its body once the stop has begun, and another request behind it.
        socket.write(
          Buffer.concat([
            Buffer.from(body),
            rawRequest('POST', '/api/v1/todos', {
              headers: { 'Content-Type': 'application/json' },
              body: JSON.stringify({ todoTitle: 'pipelined behind it' }),
            }),
          ]),
        )
        await socketClosed
        const exit = await server.exited

        const answers = parseResponses(Buffer.concat(received), { closed: true }).responses
        expect(answers.map((answer) => answer.status)).toEqual([201])
        expect(exit).toEqual({ code: 0, signal: null })
        const rows = await ready().query<{ title: string }>('select todo_title as title from todo')
        const titles = rows.map((row) => row.title)
        expect(titles).toContain('in flight at the stop')
        expect(titles).not.toContain('pipelined behind it')
      },
    )
  })
}
