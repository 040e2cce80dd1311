import { randomBytes } from 'node:crypto'
import { expect } from 'vitest'
import { JSON_TYPE, PARAMETER_TYPE_MISMATCH } from './api-errors.js'
import type { IsolatedDatabase } from './databases.js'
import { causeViolations } from './error-causes.js'
import {
  type RawBytes,
  type RawExchange,
  type RawExchangeOptions,
  type RawResponse,
  rawExchange,
  rawRequest,
} from './raw-http.js'
import type { SuiteServer } from './server.js'

/**
 * Requests and expectations of the suites that speak to the Todo resource over raw TCP
 * connections (test/http/pipelining.test.ts, malformed-requests.test.ts,
 * body-encodings.test.ts, absolute-form-target.test.ts): requests written byte for byte,
 * what the database holds afterwards, and answers held to the contract on the wire.
 */

export const TODOS = '/api/v1/todos'
export const TRACK_ID = /^[A-Za-z0-9._-]{1,64}$/
export const FRAMEWORK_CODE = /^e\.ex\.fw\.\d{4}$/
export const UNKNOWN_TODO_ID = '00000000-0000-7000-8000-000000000000'

/** A header past the limit: 431 with the type-mismatch answer, naming no target. */
export const HEADER_TOO_LARGE = PARAMETER_TYPE_MISMATCH

// ---- requests -------------------------------------------------------------------------

export const RUN = randomBytes(3).toString('hex')
let sequence = 0

/** A todo title no other test uses (at most 30 characters). */
export function uniqueTitle(label: string): string {
  sequence += 1
  return `${label.slice(0, 12)}-${RUN}-${sequence}`
}

export type Headers = Readonly<Record<string, string>>

/** A POST of a Todo with the given title, Content-Type application/json. */
export function postTodo(todoTitle: string, headers: Headers = {}): Buffer {
  return rawRequest('POST', TODOS, {
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ todoTitle }),
  })
}

/** A POST of a raw body (bytes as given) with the given headers. */
export function postBody(body: RawBytes, headers: Headers = {}): Buffer {
  return rawRequest('POST', TODOS, {
    headers: { 'Content-Type': 'application/json', ...headers },
    body,
  })
}

export function get(target: string, headers: Headers = {}): Buffer {
  return rawRequest('GET', target, { headers })
}

/** One TCP write holding every request. */
export function pipelined(...requests: RawBytes[]): Buffer {
  return Buffer.concat(requests.map((request) => Buffer.from(request)))
}

/** A JSON text of exactly `bytes` bytes: a valid Todo padded with trailing JSON whitespace. */
export function paddedTodo(todoTitle: string, bytes: number): string {
  const body = JSON.stringify({ todoTitle }).padEnd(bytes, ' ')
  expect(Buffer.byteLength(body)).toBe(bytes)
  return body
}

// ---- storage --------------------------------------------------------------------------

export async function storedTitles(database: IsolatedDatabase): Promise<string[]> {
  const rows = await database.query<{ title: string }>('select todo_title as title from todo')
  return rows.map((row) => row.title)
}

export async function countTodos(database: IsolatedDatabase): Promise<number> {
  const rows = await database.query<{ n: number | string }>('select count(*) as n from todo')
  return Number(rows[0]?.n)
}

// ---- answers --------------------------------------------------------------------------

/** What the server said, in a form whose diff reads well when an expectation fails. */
export function describeExchange(exchange: RawExchange): string {
  const shown = exchange.raw.toString('utf8').slice(0, 600)
  const ending = exchange.closedByServer
    ? 'then the server closed the connection'
    : exchange.timedOut
      ? 'then nothing more (timed out, the connection still open)'
      : 'the client stopped reading there'
  return `${exchange.responses.length} response(s), ${ending}; raw: ${JSON.stringify(shown)}`
}

/** The parts of an answer the tests check. */
export function summarize(response: RawResponse | undefined) {
  if (response === undefined) return { statusLine: '(no answer)' }
  return {
    statusLine: response.statusLine,
    contentType: response.headers['content-type'],
    track: response.headers['x-track'],
    body: response.json ?? response.text,
  }
}

/** Every /api/v1 answer carries nosniff (decisions §7); checked softly, after the rest. */
export function expectNosniff(response: RawResponse | undefined, label = ''): void {
  expect
    .soft(response?.headers['x-content-type-options'], `X-Content-Type-Options ${label}`)
    .toBe('nosniff')
}

/**
 * The first answer is an ApiError: one of `statuses`, the exact JSON Content-Type, an
 * X-Track, nosniff, and a body of exactly `code` and a message (with a pattern for the
 * code, a string `target` is allowed too).
 */
export function expectRawApiError(
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
export const NO_FEATURES = { authentication: false, rateLimit: false } as const

/** A successful /api/v1 answer: status, exact JSON type (unless bodiless), X-Track, nosniff. */
export function expectSuccess(
  response: RawResponse | undefined,
  status: number,
  track?: string,
): void {
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
export function statusesAndTracks(exchange: RawExchange): [number, string | undefined][] {
  for (const response of exchange.responses) expectNosniff(response, response.statusLine)
  return exchange.responses.map((response) => [response.status, response.headers['x-track']])
}

/** The server still answers a new connection. */
export async function expectStillServing(suite: SuiteServer): Promise<void> {
  const exchange = await rawExchange(suite.server.baseUrl, get(TODOS), { responses: 1 })
  expect(exchange.responses[0]?.status, describeExchange(exchange)).toBe(200)
}

/**
 * An answer that ends the connection: it was the only one, the server closed, none of
 * `notStored` (a refused request's title, those pipelined after it) was stored, and a
 * new connection is still served.
 */
export async function expectClosedAfterOneAnswer(
  suite: SuiteServer,
  exchanged: RawExchange,
  notStored: readonly string[],
): Promise<void> {
  expect(exchanged.responses.length, describeExchange(exchanged)).toBe(1)
  expect(exchanged.closedByServer).toBe(true)
  const stored = await storedTitles(suite.database)
  for (const title of notStored) expect(stored).not.toContain(title)
  await expectStillServing(suite)
}

export function exchange(
  suite: SuiteServer,
  bytes: RawBytes | readonly RawBytes[],
  options: RawExchangeOptions = {},
): Promise<RawExchange> {
  return rawExchange(suite.server.baseUrl, bytes, { timeoutMs: 3000, ...options })
}

export function todoOf(response: RawResponse | undefined): { todoId: string; todoTitle: string } {
  return response?.json as { todoId: string; todoTitle: string }
}

/** The titles in a GET /api/v1/todos answer (none when it is no list). */
export function listedTitles(response: RawResponse | undefined): string[] {
  const list = response?.json
  return Array.isArray(list) ? list.map((todo: { todoTitle: string }) => todo.todoTitle) : []
}
