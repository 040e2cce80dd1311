import { describe, expect, it } from 'vitest'
import { PARAMETER_TYPE_MISMATCH } from '../helpers/api-errors.js'
import { SQLITE_TARGET } from '../helpers/databases.js'
import { rawRequest } from '../helpers/raw-http.js'
import {
  countTodos,
  describeExchange,
  exchange,
  expectClosedAfterOneAnswer,
  expectRawApiError,
  expectStillServing,
  expectSuccess,
  get,
  HEADER_TOO_LARGE,
  pipelined,
  postTodo,
  storedTitles,
  TODOS,
  todoOf,
  uniqueTitle,
} from '../helpers/raw-todos.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * Request lines and headers that an HTTP client would never send and Node's own HTTP
 * layer rejects (decisions §1, §7): still an ApiError with the exact JSON type and an
 * X-Track, never a 5xx or silence. Every request goes over a raw TCP connection
 * (test/helpers/raw-http.ts), byte for byte as written here.
 */

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
      expectRawApiError(exchanged, statuses)
      await expectStillServing(suite)
    },
  )

  it.each(REFUSED_BODIES)(
    'a POST with %s -> 400 with an ApiError, nothing stored',
    async (_label, request) => {
      const title = uniqueTitle('framing')
      const before = await countTodos(suite.database)
      const exchanged = await exchange(suite, request(title), { responses: 1 })
      expectRawApiError(exchanged, [400])
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
    expectRawApiError(exchanged, [431], HEADER_TOO_LARGE)
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
    '%s -> %i e.ex.fw.7006 naming the header, as docs/usage.md says ("What the service reads strictly")',
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
    const [answer] = exchanged.responses
    expect(answer?.status === 201 || answer?.status === 400, describeExchange(exchanged)).toBe(true)
    expect(answer?.headers.connection).toBe('close')
    await expectClosedAfterOneAnswer(suite, exchanged, [after])
  })

  it('a request line with two spaces: read word by word (RFC 9112 §3 allows it) or refused with an ApiError', async () => {
    const exchanged = await exchange(suite, 'GET  /api/v1/todos HTTP/1.1\r\nHost: x\r\n\r\n', {
      responses: 1,
    })
    if (exchanged.responses[0]?.status === 200) expectSuccess(exchanged.responses[0], 200)
    else expectRawApiError(exchanged, [400])
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
