import type { FastifyInstance } from 'fastify'
import { expect } from 'vitest'
import type { HttpOptions, HttpResponse } from './http.js'
import { type Fields, type MemberBody, RUN, updateBody } from './members.js'
import { openRaw, type RawResponse } from './raw-http.js'
import { TODOS } from './raw-todos.js'
import type { SuiteServer } from './server.js'

/**
 * Requests, recorders and values of the security suites (test/security/attacker-requests
 * and request-timeouts): what an attacker sends, the passwords that must never come
 * back, and a record of every answer for the suite-wide checks.
 */

export const MEMBERS = '/api/v1/members'
export const METHODS = ['GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'DELETE'] as const

/** The headers of a plain JSON answer, protective ones included; a 500 carries no other. */
export const PLAIN_HEADERS = [
  'cache-control',
  'connection',
  'content-length',
  'content-type',
  'date',
  'keep-alive',
  'x-content-type-options',
  'x-track',
]
/** A data-access failure (9002), in English and Japanese. */
export const DATA_ACCESS_ERROR = { code: 'e.ex.fw.9002', message: 'System error occurred.' }
export const DATA_ACCESS_ERROR_JA = {
  code: 'e.ex.fw.9002',
  message: 'システムエラーが発生しました。',
}
export const REQUEST_TIMEOUT = {
  code: 'e.ex.fw.7003',
  message: 'Request body format error occurred.',
}

/** The passwords this file sends (all in TEST_PASSWORDS, which the run-wide log scan uses). */
export const PASSWORDS = {
  created: 'Canary-Created-7f3Q',
  second: 'Canary-Second-9xKw',
  invalid: 'Canary-Invalid-2bRt',
  updated: 'Canary-Updated-4mZp',
  replayed: 'Canary-Replayed-6hY',
  broken: 'Canary-Broken-8vNc',
} as const
/** What may appear in no response and no log line. */
export const SECRETS = [...Object.values(PASSWORDS), '$argon2']

/** SQL and LIKE metacharacters, and classic injections. */
export const INJECTIONS = ['%', '_', '\\', "'", '"', "'; drop table member; --", "%' or '1'='1"]
/** Injections of exactly 10 characters: valid member ids as far as their length goes. */
export const TEN_CHAR_INJECTIONS = [
  '%%%%%%%%%%',
  '__________',
  '\\'.repeat(10),
  "'; drop --",
  "%'or'1'='1",
  '"; drop --',
]

// ---- requests -------------------------------------------------------------------------

let sequence = 0

/** A POST body that passes every Create rule, with `profile` and `credential` changes on top. */
export function newMember(profile: Fields = {}, credential: Fields = {}): Fields {
  sequence += 1
  return {
    firstName: 'Sec',
    lastName: 'Urity',
    genderCode: '2',
    dateOfBirth: '1985-05-05',
    emailAddress: `security${sequence}.${RUN}@example.com`,
    credential: { password: PASSWORDS.created, ...credential },
    ...profile,
  }
}

export interface RecordedExchange {
  readonly request: string
  readonly response: HttpResponse
}

/** Sends requests to the suite's server and keeps every answer for the final checks. */
export function recorder(suite: SuiteServer) {
  const exchanges: RecordedExchange[] = []
  const call = async (
    method: string,
    path: string,
    options?: HttpOptions,
  ): Promise<HttpResponse> => {
    const response = await suite.server.request(method, path, options)
    exchanges.push({ request: `${method} ${path.slice(0, 120)}`, response })
    return response
  }
  return { call, exchanges }
}
export type Call = ReturnType<typeof recorder>['call']

export async function createMember(call: Call, profile: Fields = {}, credential: Fields = {}) {
  const response = await call('POST', MEMBERS, { body: newMember(profile, credential) })
  expect(response.status, response.text).toBe(201)
  return response.body as MemberBody
}

export async function createTodo(call: Call, todoTitle: string): Promise<{ todoId: string }> {
  const response = await call('POST', TODOS, { body: { todoTitle } })
  expect(response.status, response.text).toBe(201)
  return response.body as { todoId: string; todoTitle: string }
}

/** A JSON text of exactly `bytes` bytes: `value` padded with trailing JSON whitespace. */
export function paddedJson(value: unknown, bytes: number): string {
  const text = JSON.stringify(value).padEnd(bytes, ' ')
  expect(Buffer.byteLength(text)).toBe(bytes)
  return text
}

/** The secrets found in a response: its headers and its body. */
export function secretsIn(response: HttpResponse): string[] {
  const text = `${JSON.stringify(response.headers)}\n${response.text}`
  return SECRETS.filter((secret) => text.includes(secret))
}

/** The secrets found in the server's captured log lines, with the lines' messages. */
export function secretsInLogs(logs: readonly Record<string, unknown>[]): string[] {
  const found: string[] = []
  for (const line of logs) {
    const text = JSON.stringify(line)
    for (const secret of SECRETS) {
      if (text.includes(secret)) found.push(`${secret} in "${String(line.msg)}" line`)
    }
  }
  return found
}

// ---- the route table -------------------------------------------------------------------

export interface RouteEntry {
  readonly path: string
  readonly methods: readonly string[]
}

/**
 * Every path and its methods, read from Fastify's own route tree, so a route added
 * later is swept too:
 * `├── /api/v1/todos (GET, HEAD, POST, OPTIONS)` / `│   └── /:todoId (GET, ...)`.
 */
export function routeTable(app: FastifyInstance): RouteEntry[] {
  const routes: RouteEntry[] = []
  const segments: string[] = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line)
    if (!match) continue
    const depth = (match[1] ?? '').length / 4
    segments.length = depth
    segments.push(match[2] ?? '')
    if (match[3]) routes.push({ path: segments.join(''), methods: match[3].split(', ') })
  }
  return routes
}

// ---- raw sockets -----------------------------------------------------------------------

export interface SlowClientResult {
  /** Everything the server wrote. */
  readonly response: string
  /** The first answer on the socket. */
  readonly first: RawResponse | undefined
  /** From connecting until the socket closed. */
  readonly closedAfterMs: number
  /** False when the client gave up waiting (the server never cut it off). */
  readonly closedByServer: boolean
}

/**
 * A slow client: connects, writes `head`, then one byte of `trickle` every `intervalMs`
 * until the server closes the connection (or `giveUpMs` passes).
 */
export function slowClient(
  baseUrl: string,
  head: string,
  trickle: string,
  { intervalMs = 200, giveUpMs = 6000 } = {},
): { readonly result: Promise<SlowClientResult>; isOpen(): boolean } {
  const connection = openRaw(baseUrl, head, {
    timeoutMs: giveUpMs,
    trickle: { text: trickle, intervalMs },
  })
  const result = connection.result.then((exchange) => ({
    response: exchange.raw.toString('utf8'),
    first: exchange.responses[0],
    closedAfterMs: exchange.elapsedMs,
    closedByServer: exchange.closedByServer,
  }))
  return { result, isOpen: connection.isOpen }
}

// ---- password flows ----------------------------------------------------------------------

/**
 * Every way a password reaches the service: creates, a sign-id conflict, rejected bodies
 * of each kind with a password in them, updates, idempotent replays, reads and searches.
 * Asserts each status; the callers then scan the answers and the logs.
 */
export async function sendPasswordsEverywhere(call: Call): Promise<void> {
  const member = await createMember(call, { firstName: 'Guarded' })
  await createMember(call, { firstName: 'Guarded' }, { password: PASSWORDS.second })
  /** Sends each case (to the collection, or PUT to the member) and checks every status. */
  const expectStatuses = async (cases: [string, string, HttpOptions, number][]) => {
    const seen: [string, number][] = []
    for (const [label, method, options] of cases) {
      const path = method === 'PUT' ? `${MEMBERS}/${member.memberId}` : MEMBERS
      seen.push([label, (await call(method, path, options)).status])
    }
    expect(seen).toEqual(cases.map(([label, , , status]) => [label, status]))
  }
  const withPassword = (profile: Fields = {}, password: string = PASSWORDS.invalid) =>
    newMember(profile, { password })
  await expectStatuses([
    [
      'sign id conflict',
      'POST',
      { body: newMember({}, { signId: member.credential.signId, password: PASSWORDS.invalid }) },
      409,
    ],
    ['too-long firstName', 'POST', { body: withPassword({ firstName: 'x'.repeat(129) }) }, 400],
    ['too-long password', 'POST', { body: withPassword({}, PASSWORDS.invalid.repeat(3)) }, 400],
    ['future birth date', 'POST', { body: withPassword({ dateOfBirth: '2999-01-01' }) }, 400],
    ['unknown field', 'POST', { body: withPassword({ nickname: PASSWORDS.invalid }) }, 400],
    [
      'password of the wrong type',
      'POST',
      { body: newMember({}, { password: [PASSWORDS.invalid] }) },
      400,
    ],
    [
      'password with NUL',
      'POST',
      { body: newMember({}, { password: `${PASSWORDS.invalid}\u0000` }) },
      400,
    ],
    [
      'malformed JSON',
      'POST',
      {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(withPassword()).slice(0, -2),
      },
      400,
    ],
    [
      'not JSON',
      'POST',
      {
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify(withPassword()),
      },
      415,
    ],
    [
      'body too large',
      'POST',
      {
        headers: { 'content-type': 'application/json' },
        body: paddedJson(withPassword(), 65_537),
      },
      413,
    ],
    [
      'update',
      'PUT',
      { body: updateBody(member, { firstName: 'Guarded', address: 'Somewhere' }) },
      200,
    ],
    [
      'update with a new password',
      'PUT',
      { body: updateBody(member, { credential: { password: PASSWORDS.updated } }) },
      400,
    ],
    [
      'update with a password beside a too-long firstName',
      'PUT',
      {
        body: updateBody(member, {
          firstName: 'x'.repeat(129),
          credential: { password: PASSWORDS.updated },
        }),
      },
      400,
    ],
    [
      'update with a password in an unknown field',
      'PUT',
      { body: updateBody(member, { password: PASSWORDS.updated }) },
      400,
    ],
  ])

  const key = `security-${RUN}-${sequence}`
  const replayed = newMember({ firstName: 'Guarded' }, { password: PASSWORDS.replayed })
  const first = await call('POST', MEMBERS, { headers: { 'idempotency-key': key }, body: replayed })
  const again = await call('POST', MEMBERS, { headers: { 'idempotency-key': key }, body: replayed })
  const reused = await call('POST', MEMBERS, {
    headers: { 'idempotency-key': key },
    // Another request (another name and another password, which counts through argon2id).
    body: { ...replayed, firstName: 'Other', credential: { password: PASSWORDS.second } },
  })
  expect([first.status, again.status, reused.status]).toEqual([201, 201, 422])
  expect(again.headers['idempotent-replayed']).toBe('true')

  for (const path of [
    `${MEMBERS}/${member.memberId}`,
    `${MEMBERS}?name=Guarded`,
    `${MEMBERS}?name=Guarded&unpaged=true`,
  ]) {
    expect((await call('GET', path)).status).toBe(200)
  }
}
