import { randomBytes } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { PARAMETER_TYPE_MISMATCH } from '../helpers/api-errors.js'
import { DATABASES, type IsolatedDatabase, SQLITE_TARGET } from '../helpers/databases.js'
import { causeViolations } from '../helpers/error-causes.js'
import {
  type RawBytes,
  type RawExchange,
  type RawExchangeOptions,
  type RawResponse,
  rawExchange,
  rawRequest,
} from '../helpers/raw-http.js'
import { type SuiteServer, serverPerSuite } from '../helpers/server.js'

/**
 * What the service answers on the wire to what an HTTP client would never send:
 * pipelined requests (decisions §2 "Connections"), request lines and headers that Node's
 * own HTTP layer rejects (decisions §1, §7: still an ApiError with the exact JSON type and
 * an X-Track), body encodings (decisions §2 "Request bodies are UTF-8 JSON") and the
 * absolute-form request target (decisions §5 Location). Every request goes over a raw
 * TCP connection (test/helpers/raw-http.ts), byte for byte as written here.
 */

const JSON_TYPE = 'application/json;charset=UTF-8'
const TODOS = '/api/v1/todos'
const TRACK_ID = /^[A-Za-z0-9._-]{1,64}$/
const FRAMEWORK_CODE = /^e\.ex\.fw\.\d{4}$/
const UNKNOWN_TODO_ID = '00000000-0000-7000-8000-000000000000'

const MALFORMED_BODY = { code: 'e.ex.fw.7003', message: 'Request body format error occurred.' }
const BODY_TOO_LARGE = { code: 'e.ex.fw.7007', message: 'Request body too large.' }
const HEADER_TOO_LARGE = {
  code: 'e.ex.fw.7006',
  message: 'Type mismatch error occurred in request parameter or header or path variable.',
}
const UNSUPPORTED_MEDIA_TYPE = {
  code: 'e.ex.fw.6003',
  message: 'Specified media type in the request body not supported.',
}
const todoNotFound = (todoId: string) => ({
  code: 'e.ex.td.5001',
  message: `Specified todo not found. todo id : ${todoId}`,
})

// ---- requests -------------------------------------------------------------------------

const RUN = randomBytes(3).toString('hex')
let sequence = 0

/** A todo title no other test uses (at most 30 characters). */
function uniqueTitle(label: string): string {
  sequence += 1
  return `${label.slice(0, 12)}-${RUN}-${sequence}`
}

type Headers = Readonly<Record<string, string>>

/** A POST of a Todo with the given title, Content-Type application/json. */
function postTodo(todoTitle: string, headers: Headers = {}): Buffer {
  return rawRequest('POST', TODOS, {
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ todoTitle }),
  })
}

/** A POST of a raw body (bytes as given) with the given headers. */
function postBody(body: RawBytes, headers: Headers = {}): Buffer {
  return rawRequest('POST', TODOS, {
    headers: { 'Content-Type': 'application/json', ...headers },
    body,
  })
}

function get(target: string, headers: Headers = {}): Buffer {
  return rawRequest('GET', target, { headers })
}

/** One TCP write holding every request. */
function pipelined(...requests: RawBytes[]): Buffer {
  return Buffer.concat(requests.map((request) => Buffer.from(request)))
}

/** A JSON text of exactly `bytes` bytes: a valid Todo padded with trailing JSON whitespace. */
function paddedTodo(todoTitle: string, bytes: number): string {
  const body = JSON.stringify({ todoTitle }).padEnd(bytes, ' ')
  expect(Buffer.byteLength(body)).toBe(bytes)
  return body
}

// ---- storage --------------------------------------------------------------------------

async function storedTitles(database: IsolatedDatabase): Promise<string[]> {
  const rows = await database.query<{ title: string }>('select todo_title as title from todo')
  return rows.map((row) => row.title)
}

async function countTodos(database: IsolatedDatabase): Promise<number> {
  const rows = await database.query<{ n: number | string }>('select count(*) as n from todo')
  return Number(rows[0]?.n)
}

// ---- answers --------------------------------------------------------------------------

/** What the server said, in a form whose diff reads well when an expectation fails. */
function describeExchange(exchange: RawExchange): string {
  const shown = exchange.raw.toString('utf8').slice(0, 600)
  const ending = exchange.closedByServer
    ? 'then the server closed the connection'
    : exchange.timedOut
      ? 'then nothing more (timed out, the connection still open)'
      : 'the client stopped reading there'
  return `${exchange.responses.length} response(s), ${ending}; raw: ${JSON.stringify(shown)}`
}

/** The parts of an answer the tests check. */
function summarize(response: RawResponse | undefined) {
  if (response === undefined) return { statusLine: '(no answer)' }
  return {
    statusLine: response.statusLine,
    contentType: response.headers['content-type'],
    track: response.headers['x-track'],
    body: response.json ?? response.text,
  }
}

/** Every /api/v1 answer carries nosniff (decisions §7); checked softly, after the rest. */
function expectNosniff(response: RawResponse | undefined, label = ''): void {
  expect
    .soft(response?.headers['x-content-type-options'], `X-Content-Type-Options ${label}`)
    .toBe('nosniff')
}

/**
 * The first answer is an ApiError: one of `statuses`, the exact JSON Content-Type, an
 * X-Track, nosniff, and a body of exactly `code` and a message (with a pattern for the
 * code, a string `target` is allowed too).
 */
function expectApiError(
  exchange: RawExchange,
  statuses: readonly number[],
  body: { readonly code: string | RegExp; readonly message?: string } = { code: FRAMEWORK_CODE },
): void {
  const [answer] = exchange.responses
  const code = typeof body.code === 'string' ? body.code : expect.stringMatching(body.code)
  // Where any code will do, the ApiError may name its target (the header at fault).
  const json = answer?.json
  const named = typeof body.code !== 'string' && typeof json === 'object' && json !== null
  const target = named && 'target' in json ? { target: expect.any(String) } : {}
  expect(
    { ...summarize(answer), statusExpected: statuses.includes(answer?.status ?? 0) },
    describeExchange(exchange),
  ).toEqual({
    statusLine: expect.any(String),
    statusExpected: true,
    contentType: JSON_TYPE,
    track: expect.stringMatching(TRACK_ID),
    body: { code, message: body.message ?? expect.any(String), ...target },
  })
  expectNosniff(answer, answer?.statusLine)
  expect(
    causeViolations(answer?.status ?? 0, json, NO_FEATURES),
    describeExchange(exchange),
  ).toEqual([])
}

/** The raw-socket suites run with authentication and rate limits off. */
const NO_FEATURES = { authentication: false, rateLimit: false } as const

/** A successful /api/v1 answer: status, exact JSON type (unless bodiless), X-Track, nosniff. */
function expectSuccess(response: RawResponse | undefined, status: number, track?: string): void {
  const bodiless = status === 204 || status === 304
  expect({
    status: response?.status,
    contentType: response?.headers['content-type'],
    track: response?.headers['x-track'],
  }).toEqual({
    status,
    contentType: bodiless ? undefined : JSON_TYPE,
    track: track ?? expect.stringMatching(TRACK_ID),
  })
  expectNosniff(response, response?.statusLine)
}

/** [status, X-Track] of every answer, each also checked for nosniff. */
function statusesAndTracks(exchange: RawExchange): [number, string | undefined][] {
  for (const response of exchange.responses) expectNosniff(response, response.statusLine)
  return exchange.responses.map((response) => [response.status, response.headers['x-track']])
}

/** The server still answers a new connection. */
async function expectStillServing(suite: SuiteServer): Promise<void> {
  const exchange = await rawExchange(suite.server.baseUrl, get(TODOS), { responses: 1 })
  expect(exchange.responses[0]?.status, describeExchange(exchange)).toBe(200)
}

function exchange(
  suite: SuiteServer,
  bytes: RawBytes | readonly RawBytes[],
  options: RawExchangeOptions = {},
): Promise<RawExchange> {
  return rawExchange(suite.server.baseUrl, bytes, { timeoutMs: 3000, ...options })
}

function todoOf(response: RawResponse | undefined): { todoId: string; todoTitle: string } {
  return response?.json as { todoId: string; todoTitle: string }
}

/** The titles in a GET /api/v1/todos answer (none when it is no list). */
function listedTitles(response: RawResponse | undefined): string[] {
  const list = response?.json
  return Array.isArray(list) ? list.map((todo: { todoTitle: string }) => todo.todoTitle) : []
}

// ---- pipelining -------------------------------------------------------------------------

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`pipelined requests on ${target.name}`, () => {
    const suite = serverPerSuite(target)

    it('answers GETs, POSTs, HEAD and a 404 in the order of the requests', async () => {
      const titles = [uniqueTitle('order'), uniqueTitle('order')] as const
      const exchanged = await exchange(
        suite,
        pipelined(
          get(TODOS, { 'X-Track': 'order-1' }),
          postTodo(titles[0], { 'X-Track': 'order-2' }),
          get(`${TODOS}/${UNKNOWN_TODO_ID}`, { 'X-Track': 'order-3' }),
          postTodo(titles[1], { 'X-Track': 'order-4' }),
          rawRequest('HEAD', TODOS, { headers: { 'X-Track': 'order-5' } }),
          get(TODOS, { 'X-Track': 'order-6', Connection: 'close' }),
        ),
        { methods: ['GET', 'POST', 'GET', 'POST', 'HEAD', 'GET'] },
      )
      const { responses } = exchanged
      expect(statusesAndTracks(exchanged), describeExchange(exchanged)).toEqual([
        [200, 'order-1'],
        [201, 'order-2'],
        [404, 'order-3'],
        [201, 'order-4'],
        [200, 'order-5'],
        [200, 'order-6'],
      ])
      for (const response of responses) {
        expect(response.headers['content-type']).toBe(JSON_TYPE)
      }
      expect(todoOf(responses[1]).todoTitle).toBe(titles[0])
      expect(responses[2]?.json).toEqual(todoNotFound(UNKNOWN_TODO_ID))
      expect(todoOf(responses[3]).todoTitle).toBe(titles[1])
      expect(responses[4]?.body.length).toBe(0)
      expect(exchanged.closedByServer).toBe(true)
    })

    it('answers 20 alternating POSTs and GETs in order, each matched by its X-Track', async () => {
      const requests: Buffer[] = []
      const expected: [number, string][] = []
      for (let index = 0; index < 20; index++) {
        const track = `many.${RUN}.${index}`
        const last = index === 19
        const headers: Headers = { 'X-Track': track, ...(last && { Connection: 'close' }) }
        if (index % 2 === 0) {
          requests.push(postTodo(`many-${RUN}-${index}`, headers))
          expected.push([201, track])
        } else {
          requests.push(get(index % 4 === 1 ? TODOS : `${TODOS}/${UNKNOWN_TODO_ID}`, headers))
          expected.push([index % 4 === 1 ? 200 : 404, track])
        }
      }
      const exchanged = await exchange(suite, pipelined(...requests))
      expect(statusesAndTracks(exchanged), describeExchange(exchanged)).toEqual(expected)
      exchanged.responses.forEach((response, index) => {
        if (index % 2 === 0) expect(todoOf(response).todoTitle).toBe(`many-${RUN}-${index}`)
      })
    })

    it('answers a flood of 2,000 pipelined requests, all in order (read as the line shortens)', async () => {
      const count = 2000
      const requests = Array.from({ length: count }, (_, index) =>
        get('/health/live', {
          'X-Track': `flood.${RUN}.${index}`,
          ...(index === count - 1 && { Connection: 'close' }),
        }),
      )
      const exchanged = await exchange(suite, pipelined(...requests), { timeoutMs: 20_000 })
      expect(statusesAndTracks(exchanged)).toEqual(
        Array.from({ length: count }, (_, index) => [200, `flood.${RUN}.${index}`]),
      )
    })

    it('answers a large POST before the small GET pipelined behind it', async () => {
      const title = uniqueTitle('large')
      const exchanged = await exchange(
        suite,
        pipelined(
          postBody(paddedTodo(title, 65_536), { 'X-Track': 'large-post' }),
          get(TODOS, { 'X-Track': 'small-get', Connection: 'close' }),
        ),
      )
      expect(statusesAndTracks(exchanged), describeExchange(exchanged)).toEqual([
        [201, 'large-post'],
        [200, 'small-get'],
      ])
      expect(todoOf(exchanged.responses[0]).todoTitle).toBe(title)
    })

    it('answers requests split across writes at arbitrary byte boundaries', async () => {
      const title = uniqueTitle('split')
      const bytes = pipelined(
        postTodo(title, { 'X-Track': 'split-1' }),
        get(TODOS, { 'X-Track': 'split-2', Connection: 'close' }),
      )
      const cuts = [3, 17, 40, 95, bytes.length - 5]
      const writes = cuts.map((cut, index) => bytes.subarray(cuts[index - 1] ?? 0, cut))
      writes.push(bytes.subarray(cuts.at(-1)))
      const exchanged = await exchange(suite, writes, { writeIntervalMs: 20 })
      expect(statusesAndTracks(exchanged), describeExchange(exchanged)).toEqual([
        [201, 'split-1'],
        [200, 'split-2'],
      ])
    })

    it('executes a pipelined GET after the POST before it: the list holds the new todo', async () => {
      const title = uniqueTitle('seen')
      const exchanged = await exchange(
        suite,
        pipelined(postTodo(title), get(TODOS, { Connection: 'close' })),
      )
      expect(
        statusesAndTracks(exchanged).map(([status]) => status),
        describeExchange(exchanged),
      ).toEqual([201, 200])
      expect(listedTitles(exchanged.responses[1])).toContain(title)
    })

    it('(a) a valid POST then GARBAGE in one write: 201 first (stored), then 400 7003, then close', async () => {
      const title = uniqueTitle('garbage')
      const before = await countTodos(suite.database)
      const exchanged = await exchange(
        suite,
        pipelined(postTodo(title, { 'X-Track': 'before-garbage' }), 'GARBAGE\r\n\r\n'),
      )
      const { responses } = exchanged
      expect(responses.map(summarize), describeExchange(exchanged)).toEqual([
        {
          statusLine: 'HTTP/1.1 201 Created',
          contentType: JSON_TYPE,
          track: 'before-garbage',
          body: expect.objectContaining({ todoTitle: title, finished: false }),
        },
        {
          statusLine: 'HTTP/1.1 400 Bad Request',
          contentType: JSON_TYPE,
          track: expect.stringMatching(TRACK_ID),
          body: MALFORMED_BODY,
        },
      ])
      for (const response of responses) expectNosniff(response, response.statusLine)
      expect(exchanged.closedByServer).toBe(true)
      expect(await storedTitles(suite.database)).toContain(title)
      expect(await countTodos(suite.database)).toBe(before + 1)
      await expectStillServing(suite)
    })

    it('(b) POST a, POST {x, POST b in one write: 201, 400; b stored only if its 201 came', async () => {
      const [a, b] = [uniqueTitle('pipe-a'), uniqueTitle('pipe-b')]
      const before = await countTodos(suite.database)
      const exchanged = await exchange(
        suite,
        pipelined(
          postTodo(a, { 'X-Track': 'pipe-a' }),
          postBody('{x', { 'X-Track': 'pipe-x' }),
          // If the connection stays open after the 400, this one closes it.
          postTodo(b, { 'X-Track': 'pipe-b', Connection: 'close' }),
        ),
      )
      const { responses } = exchanged
      expect(statusesAndTracks(exchanged).slice(0, 2), describeExchange(exchanged)).toEqual([
        [201, 'pipe-a'],
        [400, 'pipe-x'],
      ])
      expect(todoOf(responses[0]).todoTitle).toBe(a)
      expect(responses[1]?.json).toEqual(MALFORMED_BODY)
      expect(exchanged.closedByServer).toBe(true)
      const titles = await storedTitles(suite.database)
      expect(titles).toContain(a)
      if (responses.length === 2) {
        // The 400 closed the connection: b was received but must not have run.
        expect(titles).not.toContain(b)
        expect(await countTodos(suite.database)).toBe(before + 1)
      } else {
        expect(responses.length).toBe(3)
        expect(responses[2]?.status).toBe(201)
        expect(todoOf(responses[2]).todoTitle).toBe(b)
        expect(titles).toContain(b)
        expect(await countTodos(suite.database)).toBe(before + 2)
      }
      // A new connection sees the same.
      const list = await exchange(suite, get(TODOS), { responses: 1 })
      expect(listedTitles(list.responses[0]).includes(b)).toBe(responses.length === 3)
    })

    it('does not execute a request pipelined after one with Connection: close', async () => {
      const [first, second] = [uniqueTitle('closing'), uniqueTitle('after-close')]
      const exchanged = await exchange(
        suite,
        pipelined(
          postTodo(first, { 'X-Track': 'closing', Connection: 'close' }),
          postTodo(second, { 'X-Track': 'after-close' }),
        ),
      )
      expect(statusesAndTracks(exchanged), describeExchange(exchanged)).toEqual([[201, 'closing']])
      expect(exchanged.closedByServer).toBe(true)
      const titles = await storedTitles(suite.database)
      expect(titles).toContain(first)
      expect(titles).not.toContain(second)
    })

    it('does not execute a request pipelined after a 413 (Content-Length body over the limit)', async () => {
      const [big, after] = [uniqueTitle('too-big'), uniqueTitle('after-413')]
      const exchanged = await exchange(
        suite,
        pipelined(
          postBody(paddedTodo(big, 65_537), { 'X-Track': 'too-big' }),
          postTodo(after, { 'X-Track': 'after-413' }),
        ),
      )
      expectApiError(exchanged, [413], BODY_TOO_LARGE)
      expect(exchanged.responses[0]?.headers['x-track']).toBe('too-big')
      expect(exchanged.responses.length, describeExchange(exchanged)).toBe(1)
      expect(exchanged.closedByServer).toBe(true)
      const titles = await storedTitles(suite.database)
      expect(titles).not.toContain(big)
      expect(titles).not.toContain(after)
      await expectStillServing(suite)
    })

    it('does not execute a request pipelined after a 413 (chunked body over the limit)', async () => {
      const [big, after] = [uniqueTitle('chunked-big'), uniqueTitle('after-413c')]
      const body = paddedTodo(big, 70_000)
      const chunked = Buffer.concat([
        rawRequest('POST', TODOS, {
          headers: {
            'Content-Type': 'application/json',
            'Transfer-Encoding': 'chunked',
            'X-Track': 'chunked-big',
          },
        }),
        Buffer.from(`${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`),
      ])
      const exchanged = await exchange(
        suite,
        pipelined(chunked, postTodo(after, { 'X-Track': 'after-413c' })),
      )
      expectApiError(exchanged, [413], BODY_TOO_LARGE)
      expect(exchanged.responses.length, describeExchange(exchanged)).toBe(1)
      expect(exchanged.closedByServer).toBe(true)
      const titles = await storedTitles(suite.database)
      expect(titles).not.toContain(big)
      expect(titles).not.toContain(after)
      await expectStillServing(suite)
    })

    it('does not execute a request pipelined after a 431 (a 20 KiB header)', async () => {
      const after = uniqueTitle('after-431')
      const exchanged = await exchange(
        suite,
        pipelined(
          get(TODOS, { 'X-Big': 'a'.repeat(20 * 1024) }),
          postTodo(after, { 'X-Track': 'after-431' }),
        ),
      )
      expectApiError(exchanged, [431], HEADER_TOO_LARGE)
      expect(exchanged.responses.length, describeExchange(exchanged)).toBe(1)
      expect(exchanged.closedByServer).toBe(true)
      expect(await storedTitles(suite.database)).not.toContain(after)
      await expectStillServing(suite)
    })

    it('does not execute a request pipelined after a request Node cannot parse', async () => {
      const after = uniqueTitle('after-400')
      const exchanged = await exchange(
        suite,
        pipelined(
          'GET /api/v1/todos HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n',
          postTodo(after, { 'X-Track': 'after-400' }),
        ),
      )
      expectApiError(exchanged, [400])
      expect(exchanged.responses.length, describeExchange(exchanged)).toBe(1)
      expect(exchanged.closedByServer).toBe(true)
      expect(await storedTitles(suite.database)).not.toContain(after)
    })
  })
}

// ---- request line and headers -------------------------------------------------------------

/** Requests Node's HTTP layer refuses, each with the statuses that may answer it. */
const REFUSED_REQUESTS: readonly (readonly [string, readonly number[], string])[] = [
  ['HTTP/1.1 without Host', [400], 'GET /api/v1/todos HTTP/1.1\r\nX-Track: no-host\r\n\r\n'],
  [
    'Expect: 200-ok',
    [417],
    'GET /api/v1/todos HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 200-ok\r\n\r\n',
  ],
  [
    'CONNECT to an authority',
    [404, 405],
    'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n',
  ],
  [
    'CONNECT to an API path',
    [404, 405],
    'CONNECT /api/v1/todos HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
  ],
  [
    'a request line with an extra word',
    [400],
    'GET /api/v1/todos HTTP/1.1 extra\r\nHost: x\r\n\r\n',
  ],
  [
    'a request line with a space in the target',
    [400],
    'GET /api/v1/to dos HTTP/1.1\r\nHost: x\r\n\r\n',
  ],
  ['a request line with a bad protocol', [400], 'GET /api/v1/todos HTTX/1.1\r\nHost: x\r\n\r\n'],
  [
    'a request line with a bad method token',
    [400],
    'G(T /api/v1/todos HTTP/1.1\r\nHost: x\r\n\r\n',
  ],
  ['a request line of one word', [400], 'GARBAGE\r\n\r\n'],
  [
    'a header line without a colon',
    [400],
    'GET /api/v1/todos HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
  ],
  [
    'a header name with a space',
    [400],
    'GET /api/v1/todos HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n',
  ],
  [
    'a header name with a separator',
    [400],
    'GET /api/v1/todos HTTP/1.1\r\nHost: x\r\nX(y): 1\r\n\r\n',
  ],
  ['an empty header name', [400], 'GET /api/v1/todos HTTP/1.1\r\nHost: x\r\n: 1\r\n\r\n'],
  ['whitespace before the colon', [400], 'GET /api/v1/todos HTTP/1.1\r\nHost : x\r\n\r\n'],
  [
    'a NUL in a header value',
    [400],
    'GET /api/v1/todos HTTP/1.1\r\nHost: x\r\nX-Test: a\0b\r\n\r\n',
  ],
  [
    'a CR in a header value',
    [400],
    'GET /api/v1/todos HTTP/1.1\r\nHost: x\r\nX-Test: a\rb\r\n\r\n',
  ],
  [
    'an obs-fold header line',
    [400],
    'GET /api/v1/todos HTTP/1.1\r\nHost: x\r\nX-Test: a\r\n b\r\n\r\n',
  ],
  ['LF-only line endings', [400], 'GET /api/v1/todos HTTP/1.1\nHost: x\nX-Track: lf-only\n\n'],
  [
    'a 20 KiB header',
    [431],
    `GET /api/v1/todos HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
  ],
]

/** Requests with a body whose framing Node refuses; nothing of them may be stored. */
const REFUSED_BODIES: readonly (readonly [string, (title: string) => string])[] = [
  [
    'both Content-Length and Transfer-Encoding',
    (title) => {
      const body = JSON.stringify({ todoTitle: title })
      return (
        'POST /api/v1/todos HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`
      )
    },
  ],
  [
    'two differing Content-Length headers',
    (title) => {
      const body = JSON.stringify({ todoTitle: title })
      return (
        'POST /api/v1/todos HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${body.length}\r\nContent-Length: ${body.length + 1}\r\n\r\n${body} `
      )
    },
  ],
  [
    'a Content-Length that is no number',
    (title) =>
      'POST /api/v1/todos HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `Content-Length: abc\r\n\r\n${JSON.stringify({ todoTitle: title })}`,
  ],
  [
    'a negative Content-Length',
    (title) =>
      'POST /api/v1/todos HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `Content-Length: -1\r\n\r\n${JSON.stringify({ todoTitle: title })}`,
  ],
  [
    'an invalid chunk size',
    (title) => {
      const body = JSON.stringify({ todoTitle: title })
      return (
        'POST /api/v1/todos HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Transfer-Encoding: chunked\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`
      )
    },
  ],
  [
    'a chunk longer than its size',
    (title) => {
      const body = JSON.stringify({ todoTitle: title })
      return (
        'POST /api/v1/todos HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Transfer-Encoding: chunked\r\n\r\n2\r\n${body}\r\n0\r\n\r\n`
      )
    },
  ],
]

describe('request line and headers (SQLite)', () => {
  const suite = serverPerSuite(SQLITE_TARGET)

  it.each(REFUSED_REQUESTS)(
    '%s -> %j with an ApiError, and the server serves on',
    async (_label, statuses, bytes) => {
      const exchanged = await exchange(suite, bytes, { responses: 1 })
      expectApiError(exchanged, statuses)
      await expectStillServing(suite)
    },
  )

  it.each(REFUSED_BODIES)(
    'a POST with %s -> 400 with an ApiError, nothing stored',
    async (_label, request) => {
      const title = uniqueTitle('framing')
      const before = await countTodos(suite.database)
      const exchanged = await exchange(suite, request(title), { responses: 1 })
      expectApiError(exchanged, [400])
      // A request the server may still have been working on when it answered.
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(await storedTitles(suite.database)).not.toContain(title)
      expect(await countTodos(suite.database)).toBe(before)
      await expectStillServing(suite)
    },
  )

  it('answers a refused request with a 4xx, never a 5xx or silence, on a fresh connection each', async () => {
    const outcomes = await Promise.all(
      REFUSED_REQUESTS.map(async ([label, , bytes]) => {
        const exchanged = await exchange(suite, bytes, { responses: 1 })
        const status = exchanged.responses[0]?.status
        return [label, status !== undefined && status >= 400 && status < 500] as const
      }),
    )
    expect(outcomes.filter(([, fine]) => !fine).map(([label]) => label)).toEqual([])
  })

  it('answers the 431 of a 20 KiB header with e.ex.fw.7006', async () => {
    const exchanged = await exchange(suite, get(TODOS, { 'X-Big': 'a'.repeat(20 * 1024) }), {
      responses: 1,
    })
    expectApiError(exchanged, [431], HEADER_TOO_LARGE)
    expect(exchanged.responses[0]?.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large')
  })

  it.each([
    ['no Host on HTTP/1.1', 'GET /api/v1/todos HTTP/1.1\r\n\r\n', 400, 'Host'],
    ['an empty Host', 'GET /api/v1/todos HTTP/1.1\r\nHost:\r\n\r\n', 400, 'Host'],
    ['two Host lines', 'GET /api/v1/todos HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n', 400, 'Host'],
    [
      'Expect: 200-ok',
      'GET /api/v1/todos HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n',
      417,
      'Expect',
    ],
  ])(
    '%s -> %i e.ex.fw.7006 naming the header, as the README says',
    async (_label, bytes, status, target) => {
      const exchanged = await exchange(suite, bytes, { responses: 1 })
      expect(exchanged.responses[0]?.status, describeExchange(exchanged)).toBe(status)
      expect(exchanged.responses[0]?.json).toEqual({ ...PARAMETER_TYPE_MISMATCH, target })
    },
  )

  it.each([
    'evil.example/x?y=',
    'user@evil.example',
    'a b',
    'evil.example:80:80',
    'ex"ample',
    'evil.example:8o',
    '[::1',
  ])('a POST with Host %j -> 400 e.ex.fw.7006 naming Host, nothing stored', async (host) => {
    const title = uniqueTitle('bad-host')
    const request = rawRequest('POST', TODOS, {
      host,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ todoTitle: title }),
    })
    const exchanged = await exchange(suite, request, { responses: 1 })
    expect(exchanged.responses[0]?.status, describeExchange(exchanged)).toBe(400)
    expect(exchanged.responses[0]?.json).toEqual({ ...PARAMETER_TYPE_MISMATCH, target: 'Host' })
    expect(await storedTitles(suite.database)).not.toContain(title)
  })

  it.each([
    '127.0.0.1:8080',
    'localhost',
    '[::1]:8080',
    'api.example.com',
    'xn--r8jz45g.example',
    'a%2Db',
  ])('serves Host %j (RFC 3986 host and port)', async (host) => {
    const exchanged = await exchange(suite, rawRequest('GET', TODOS, { host }), { responses: 1 })
    expectSuccess(exchanged.responses[0], 200)
  })

  it('closes the connection after an HTTP/1.0 request framed with Transfer-Encoding (RFC 9112 §6.1), running nothing after it', async () => {
    const title = uniqueTitle('http10-chunked')
    const body = JSON.stringify({ todoTitle: title })
    const chunked =
      'POST /api/v1/todos HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n' +
      'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
      `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`
    const after = uniqueTitle('after-http10-chunked')
    const exchanged = await exchange(suite, pipelined(chunked, postTodo(after)))
    expect(exchanged.responses.length, describeExchange(exchanged)).toBe(1)
    const [answer] = exchanged.responses
    expect(answer?.status === 201 || answer?.status === 400, describeExchange(exchanged)).toBe(true)
    expect(answer?.headers.connection).toBe('close')
    expect(exchanged.closedByServer).toBe(true)
    expect(await storedTitles(suite.database)).not.toContain(after)
    await expectStillServing(suite)
  })

  it('a request line with two spaces: read word by word (RFC 9112 §3 allows it) or refused with an ApiError', async () => {
    const exchanged = await exchange(suite, 'GET  /api/v1/todos HTTP/1.1\r\nHost: x\r\n\r\n', {
      responses: 1,
    })
    if (exchanged.responses[0]?.status === 200) expectSuccess(exchanged.responses[0], 200)
    else expectApiError(exchanged, [400])
  })

  it('serves HTTP/1.0 without Host (Host is required of HTTP/1.1 only)', async () => {
    const exchanged = await exchange(
      suite,
      rawRequest('GET', TODOS, { host: null, version: 'HTTP/1.0' }),
    )
    expect(exchanged.responses[0]?.status, describeExchange(exchanged)).toBe(200)
    expectSuccess(exchanged.responses[0], 200)
  })

  it('answers Expect: 100-continue with 100 Continue, then the 201', async () => {
    const title = uniqueTitle('continue')
    const body = JSON.stringify({ todoTitle: title })
    const head = rawRequest('POST', TODOS, {
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': String(body.length),
        Expect: '100-continue',
        'X-Track': 'continue',
      },
    })
    const exchanged = await exchange(suite, [head, body], {
      responses: 1,
      writeIntervalMs: 100,
    })
    expect(exchanged.interim.map((response) => response.status)).toEqual([100])
    expectSuccess(exchanged.responses[0], 201, 'continue')
    expect(todoOf(exchanged.responses[0]).todoTitle).toBe(title)
  })
})

// ---- body encodings ---------------------------------------------------------------------

/** Byte sequences that are not UTF-8, each placed inside a JSON string. */
const INVALID_UTF8: readonly (readonly [string, readonly number[]])[] = [
  ['C3 28 (a lead byte without its continuation)', [0xc3, 0x28]],
  ['FF (never valid)', [0xff]],
  ['C0 AF (an overlong "/")', [0xc0, 0xaf]],
  ['ED A0 80 (an encoded lone surrogate)', [0xed, 0xa0, 0x80]],
  ['80 (a continuation byte alone)', [0x80]],
  ['E2 82 (a truncated sequence)', [0xe2, 0x82]],
  ['F4 90 80 80 (beyond U+10FFFF)', [0xf4, 0x90, 0x80, 0x80]],
]

/** `{"todoTitle":"<title><bytes>x"}` with the bytes as given. */
function titleWithBytes(title: string, bytes: readonly number[]): Buffer {
  return Buffer.concat([
    Buffer.from(`{"todoTitle":"${title}`),
    Buffer.from(bytes),
    Buffer.from('x"}'),
  ])
}

const FOREIGN_CHARSETS = [
  'application/json; charset=iso-8859-1',
  'application/json; charset=ISO-8859-1',
  'application/json; charset="iso-8859-1"',
  'application/json;charset=windows-1252',
  'application/json; charset=utf-16',
  'application/json; charset=UTF-16LE',
  'application/json; charset=Shift_JIS',
] as const

const UTF8_CHARSETS = [
  'application/json; charset=UTF-8',
  'application/json; charset="utf-8"',
  'application/json;charset=utf-8',
  'Application/JSON; Charset=Utf-8',
] as const

const FOREIGN_ENCODINGS = [
  'gzip',
  'deflate',
  'br',
  'compress',
  'x-unknown',
  'gzip, identity',
] as const

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`request body encodings on ${target.name}`, () => {
    const suite = serverPerSuite(target)

    /** Sends `bytes`, expects `status` and `body`, and checks that nothing was stored. */
    async function expectRefused(
      bytes: Buffer,
      title: string,
      status: number,
      body: { readonly code: string; readonly message: string },
    ): Promise<void> {
      const before = await countTodos(suite.database)
      const exchanged = await exchange(suite, bytes, { responses: 1 })
      expectApiError(exchanged, [status], body)
      expect(await countTodos(suite.database)).toBe(before)
      const stored = await storedTitles(suite.database)
      expect(stored.filter((stored) => stored.startsWith(title))).toEqual([])
    }

    it('Transfer-Encoding gzip, chunked (a transfer coding Node does not undo) -> 415, nothing stored', async () => {
      const title = uniqueTitle('te-gzip')
      const body = JSON.stringify({ todoTitle: title })
      const bytes = Buffer.concat([
        rawRequest('POST', TODOS, {
          headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'gzip, chunked' },
        }),
        Buffer.from(`${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`),
      ])
      await expectRefused(bytes, title, 415, UNSUPPORTED_MEDIA_TYPE)
    })

    it.each(INVALID_UTF8)(
      'invalid UTF-8 %s in a string -> 400 7003, nothing stored',
      async (_label, bytes) => {
        const title = uniqueTitle('utf8')
        await expectRefused(postBody(titleWithBytes(title, bytes)), title, 400, MALFORMED_BODY)
      },
    )

    it('invalid UTF-8 in a field name -> 400 7003 (a format error, not an unknown field)', async () => {
      const title = uniqueTitle('utf8-key')
      const body = Buffer.concat([
        Buffer.from('{"todo'),
        Buffer.from([0xff]),
        Buffer.from(`Title":"${title}","todoTitle":"${title}"}`),
      ])
      await expectRefused(postBody(body), title, 400, MALFORMED_BODY)
    })

    it('valid multi-byte UTF-8 is stored exactly', async () => {
      const title = `Grüße 日本 😀 ${RUN}`
      const exchanged = await exchange(suite, postBody(JSON.stringify({ todoTitle: title })), {
        responses: 1,
      })
      expectSuccess(exchanged.responses[0], 201)
      expect(todoOf(exchanged.responses[0]).todoTitle).toBe(title)
      expect(await storedTitles(suite.database)).toContain(title)
    })

    it.each([
      ...FOREIGN_CHARSETS.map((value) => ['Content-Type', value]),
      ...FOREIGN_ENCODINGS.map((value) => ['Content-Encoding', value]),
    ])('%s: %s on a plain JSON body -> 415 6003, nothing stored', async (header, value) => {
      const title = uniqueTitle('unreadable')
      const bytes = postBody(JSON.stringify({ todoTitle: title }), { [header]: value })
      await expectRefused(bytes, title, 415, UNSUPPORTED_MEDIA_TYPE)
    })

    it('a Latin-1 body declared as iso-8859-1 -> 415 (the media type before the bytes)', async () => {
      const title = uniqueTitle('latin1')
      const body = Buffer.from(`{"todoTitle":"${title}\u00e9"}`, 'latin1')
      const bytes = postBody(body, { 'Content-Type': 'application/json; charset=iso-8859-1' })
      await expectRefused(bytes, title, 415, UNSUPPORTED_MEDIA_TYPE)
    })

    it.each(UTF8_CHARSETS)('Content-Type %s -> 201', async (contentType) => {
      const title = uniqueTitle('utf8-ok')
      const exchanged = await exchange(
        suite,
        postBody(JSON.stringify({ todoTitle: title }), { 'Content-Type': contentType }),
        { responses: 1 },
      )
      expectSuccess(exchanged.responses[0], 201)
      expect(await storedTitles(suite.database)).toContain(title)
    })

    it('Content-Encoding gzip on a gzipped JSON body -> 415 6003, nothing stored', async () => {
      const title = uniqueTitle('gzipped')
      const bytes = postBody(gzipSync(JSON.stringify({ todoTitle: title })), {
        'Content-Encoding': 'gzip',
      })
      await expectRefused(bytes, title, 415, UNSUPPORTED_MEDIA_TYPE)
    })

    it('Content-Encoding identity -> 201', async () => {
      const title = uniqueTitle('identity')
      const exchanged = await exchange(
        suite,
        postBody(JSON.stringify({ todoTitle: title }), { 'Content-Encoding': 'identity' }),
        { responses: 1 },
      )
      expectSuccess(exchanged.responses[0], 201)
      expect(await storedTitles(suite.database)).toContain(title)
    })
  })
}

// ---- request target -----------------------------------------------------------------------

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`absolute-form request target on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const authority = () => new URL(suite.server.baseUrl).host

    it.each(['http://evil.example/api/v1/todos', 'https://evil.example:8443/api/v1/todos'])(
      'POST %s -> 201, Location from the Host header and the path',
      async (absolute) => {
        const title = uniqueTitle('absolute')
        const exchanged = await exchange(
          suite,
          rawRequest('POST', absolute, {
            host: authority(),
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ todoTitle: title }),
          }),
          { responses: 1 },
        )
        const [answer] = exchanged.responses
        expectSuccess(answer, 201)
        const { todoId } = todoOf(answer)
        expect(answer?.headers.location).toBe(`http://${authority()}${TODOS}/${todoId}`)
        expect(answer?.headers.location).not.toContain('evil.example')
        expect(await storedTitles(suite.database)).toContain(title)
      },
    )

    it('GET http://evil.example/api/v1/todos -> 200 with the list', async () => {
      const exchanged = await exchange(
        suite,
        rawRequest('GET', 'http://evil.example/api/v1/todos', { host: authority() }),
        { responses: 1 },
      )
      expectSuccess(exchanged.responses[0], 200)
      expect(Array.isArray(exchanged.responses[0]?.json)).toBe(true)
    })
  })
}
