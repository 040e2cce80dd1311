import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JSON_TYPE } from '../helpers/api-errors.js'
import { DATABASES, type IsolatedDatabase } from '../helpers/databases.js'
import type { HttpResponse } from '../helpers/http.js'
import {
  killLeftoverProcesses,
  type ServerProcess,
  startServerProcess,
} from '../helpers/process.js'

/**
 * Fuzzing at volume: generated requests to every endpoint (bodies, query strings, paths,
 * headers), sent 8 at a time to the real service in its own process. Every answer is a
 * contract status with an ApiError body (or a success), never a 5xx; the process never
 * dies; its memory is flat across the run; and what valid requests created is intact.
 */

const REQUESTS_PER_DATABASE = Number(process.env.FUZZ_REQUESTS ?? 60_000)
const BATCH = 2000
const CONCURRENCY = 8
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000)
const SUCCESS = new Set([200, 201, 204, 304])
const CONTRACT_ERRORS = new Set([400, 404, 405, 406, 409, 412, 413, 415, 422])
/** RSS may settle higher after warm-up, but must not keep growing with the requests. */
const RSS_GROWTH_LIMIT_MB = 40

// ---------------------------------------------------------------- generators

const oddText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfffy',
    '😀'.repeat(40),
    '😀'.repeat(129),
    'a'.repeat(129),
    'a'.repeat(5000),
    "'; drop table member; --",
    "%' or '1'='1",
    '%_\\',
    '<script>alert(1)</script>',
    '\u202e\u0301',
  ),
)
const edgeNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, 1, -1, 2 ** 31, 2 ** 53, -(2 ** 53), 1e308, 5e-324, 0.1),
)
const anyJson = fc.oneof(
  oddText,
  edgeNumber,
  fc.boolean(),
  fc.constant(null),
  fc.array(oddText, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), oddText, { maxKeys: 3 }),
)
const maybe = <T>(value: fc.Arbitrary<T>) => fc.oneof(value, anyJson)

const todoBody = fc.record(
  {
    todoTitle: maybe(fc.string({ minLength: 1, maxLength: 30 })),
    todoId: anyJson,
    finished: anyJson,
    createdAt: anyJson,
    extra: anyJson,
  },
  { requiredKeys: [] },
)
const validTodo = fc.record({ todoTitle: fc.string({ minLength: 1, maxLength: 30 }) })
const date = fc.oneof(
  fc.constantFrom('1990-01-01', '2000-02-29', '1999-02-29', '2999-01-01', '1990-13-01', '19900101'),
  fc.date({ noInvalidDate: true }).map((value) => value.toISOString().slice(0, 10)),
)
const memberBody = fc.record(
  {
    firstName: maybe(fc.string({ minLength: 1, maxLength: 20 })),
    lastName: maybe(fc.string({ minLength: 1, maxLength: 20 })),
    genderCode: maybe(fc.constantFrom('0', '1', '2', '9', '3')),
    dateOfBirth: maybe(date),
    emailAddress: maybe(fc.emailAddress()),
    telephoneNumber: maybe(fc.constantFrom('03-1234-5678', '+81 3 1234 5678', '1'.repeat(21))),
    zipCode: maybe(fc.constantFrom('100-0001', 'ABC', '1'.repeat(21))),
    address: maybe(fc.string({ maxLength: 40 })),
    credential: fc.oneof(
      anyJson,
      fc.record(
        {
          signId: maybe(fc.emailAddress()),
          password: maybe(fc.string({ minLength: 8, maxLength: 40 })),
          extra: anyJson,
        },
        { requiredKeys: [] },
      ),
    ),
    memberId: anyJson,
    version: anyJson,
  },
  { requiredKeys: [] },
)
const rawBody = fc.oneof(
  { weight: 4, arbitrary: todoBody.map((body) => JSON.stringify(body)) },
  { weight: 4, arbitrary: memberBody.map((body) => JSON.stringify(body)) },
  { weight: 1, arbitrary: anyJson.map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '{',
      '{"todoTitle":',
      '{"todoTitle":"a","todoTitle":"b"}',
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{}}}',
      '\ufeff{"todoTitle":"bom"}',
      `{"todoTitle":"${'x'.repeat(70_000)}"}`,
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1, max: 10_000 })
      .map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  },
)

/** A path segment naming an item: one that exists (by index into what was created), or not. */
const itemId = fc.oneof(
  { weight: 3, arbitrary: fc.nat().map((index) => ({ known: index })) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.string({ maxLength: 40 }),
        fc.constantFrom('%', '%25', '..', '%2e%2e', "1' or '1'='1", 'a'.repeat(2000), 'null'),
      )
      .map((raw) => ({ raw })),
  },
)
const queryValue = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom(
    '',
    '0',
    '-1',
    '1',
    '20',
    '1000',
    '1001',
    '99999999999999999999',
    'true',
    'abc',
    '%',
    '_',
  ),
)
const searchQuery = fc
  .record(
    {
      name: queryValue,
      page: queryValue,
      size: queryValue,
      sort: fc.oneof(
        queryValue,
        fc.constantFrom(
          'firstName,asc',
          'lastName,desc',
          'createdAt',
          'password,asc',
          'memberId,up',
        ),
      ),
      unpaged: queryValue,
      other: queryValue,
    },
    { requiredKeys: [] },
  )
  .map((query) => {
    const search = new URLSearchParams()
    for (const [name, value] of Object.entries(query)) search.append(name, String(value))
    return `?${search.toString()}`
  })

type Target =
  | { readonly kind: 'todos' | 'members' | 'fixed'; readonly path: string }
  | { readonly kind: 'todo' | 'member'; readonly id: { known: number } | { raw: string } }

const target: fc.Arbitrary<Target> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'todos', path: '/api/v1/todos' } as const) },
  { weight: 3, arbitrary: itemId.map((id) => ({ kind: 'todo', id }) as const) },
  {
    weight: 3,
    arbitrary: fc
      .oneof(fc.constant(''), searchQuery)
      .map((query) => ({ kind: 'members', path: `/api/v1/members${query}` }) as const),
  },
  { weight: 3, arbitrary: itemId.map((id) => ({ kind: 'member', id }) as const) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        fc.constantFrom(
          '/health/live',
          '/health/ready',
          '/metrics',
          '/api/v1/openapi.json',
          '/api/v1',
          '/',
          '/api/v2/todos',
          '/api/v1/todos/',
          '/api/v1/todos/%ZZ',
          '/api/v1/members/a/b',
        ),
        fc.string({ maxLength: 30 }).map((suffix) => `/api/v1/${encodeURIComponent(suffix)}`),
      )
      .map((path) => ({ kind: 'fixed', path }) as const),
  },
)
const method = fc.constantFrom(
  'GET',
  'GET',
  'HEAD',
  'POST',
  'POST',
  'PUT',
  'PUT',
  'DELETE',
  'OPTIONS',
  'PATCH',
)
const optional = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined, freq: 2 })
const printable = fc.string({ maxLength: 40 }).filter((value) => /^[\x20-\x7e]*$/.test(value))
/** Mostly what a real client sends, so that most requests get past negotiation into the rules. */
const usually = <T>(common: T, odd: fc.Arbitrary<T | undefined>) =>
  fc.oneof({ weight: 5, arbitrary: fc.constant(common) }, { weight: 1, arbitrary: odd })
const headers = fc.record({
  'content-type': usually(
    'application/json',
    fc.oneof(
      fc.constantFrom(
        undefined,
        'APPLICATION/JSON; charset=utf-8',
        'application/json; charset=latin1',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        '/',
      ),
      printable,
    ),
  ),
  accept: usually(
    undefined,
    fc.oneof(
      fc.constantFrom('*/*', 'application/json', 'application/xml', 'text/*;q=0.1'),
      printable,
    ),
  ),
  'accept-language': optional(
    fc.oneof(fc.constantFrom('ja', 'ja-JP;q=0.9, en;q=0.1', 'fr', '*', 'en-US'), printable),
  ),
  'if-match': optional(
    fc.oneof(fc.constantFrom('"1"', '"2"', '"3"', '*', 'W/"1"', '"1", "2"'), printable),
  ),
  'if-none-match': optional(fc.oneof(fc.constantFrom('"1"', '"2"', '*', 'W/"1"'), printable)),
  'x-track': optional(fc.oneof(fc.constantFrom('abc-123', 'a'.repeat(65), 'a b'), printable)),
  'idempotency-key': usually(
    undefined,
    fc.oneof(fc.uuid(), fc.constantFrom('k', 'same-key'), printable),
  ),
})

interface GeneratedRequest {
  readonly method: string
  readonly target: Target
  readonly body: string | undefined
  readonly headers: Record<string, string | undefined>
}

const request: fc.Arbitrary<GeneratedRequest> = fc.oneof(
  {
    weight: 20,
    arbitrary: fc.record({ method, target, body: optional(rawBody), headers }),
  },
  // Valid creates, so that later requests find real items to update, delete and read.
  {
    weight: 2,
    arbitrary: validTodo.map((body) => ({
      method: 'POST',
      target: { kind: 'todos', path: '/api/v1/todos' } as const,
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    })),
  },
  {
    weight: 1,
    arbitrary: fc.uuid().map((unique) => ({
      method: 'POST',
      target: { kind: 'members', path: '/api/v1/members' } as const,
      body: JSON.stringify({
        firstName: 'Fuzz',
        lastName: 'Created',
        genderCode: '1',
        dateOfBirth: '1990-01-01',
        emailAddress: `${unique}@example.com`,
        credential: { password: 'fuzz-password' },
      }),
      headers: { 'content-type': 'application/json' },
    })),
  },
)

// ---------------------------------------------------------------- run

interface Created {
  readonly path: string
  readonly body: string
}

function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
  } catch {
    return 0
  }
}

for (const database of DATABASES) {
  describe.skipIf(!database.available)(`Fuzzing at volume on ${database.name}`, () => {
    let isolated: IsolatedDatabase | undefined
    let server: ServerProcess | undefined
    beforeAll(async () => {
      isolated = await database.create()
      server = await startServerProcess(isolated.config)
    })
    afterAll(async () => {
      await killLeftoverProcesses()
      await isolated?.drop()
    })

    it(`answers ${REQUESTS_PER_DATABASE.toLocaleString('en')} generated requests within the contract`, async () => {
      if (!server) throw new Error('not started')
      const service = server
      const todos: Created[] = []
      const members: Created[] = []
      /** Items a fuzzed request may have changed or deleted: not checked at the end. */
      const touched = new Set<string>()
      const keep = await service.request('POST', '/api/v1/todos', {
        body: { todoTitle: 'keep me' },
      })
      const statuses: Record<number, number> = {}
      const rss: number[] = []
      let sent = 0
      let failure: string | undefined

      const pathOf = (generated: GeneratedRequest): string => {
        const { target } = generated
        if ('path' in target) return target.path
        const pool = target.kind === 'todo' ? todos : members
        const collection = target.kind === 'todo' ? '/api/v1/todos' : '/api/v1/members'
        if ('known' in target.id && pool.length > 0) {
          return pool[target.id.known % pool.length]?.path ?? collection
        }
        return `${collection}/${encodeURIComponent('raw' in target.id ? target.id.raw : 'none')}`
      }

      const check = (generated: GeneratedRequest, path: string, response: HttpResponse) => {
        statuses[response.status] = (statuses[response.status] ?? 0) + 1
        const problems: string[] = []
        if (!SUCCESS.has(response.status) && !CONTRACT_ERRORS.has(response.status)) {
          problems.push(`status ${response.status}`)
        }
        if (CONTRACT_ERRORS.has(response.status) && generated.method !== 'HEAD') {
          const body = response.body as { code?: unknown; message?: unknown } | undefined
          if (response.headers['content-type'] !== JSON_TYPE) problems.push('content-type')
          if (typeof body?.code !== 'string' || typeof body.message !== 'string') {
            problems.push('not an ApiError')
          }
        }
        if (response.headers['set-cookie'] !== undefined) problems.push('set-cookie')
        if (problems.length > 0 && failure === undefined) {
          failure = `${problems.join(', ')}: ${generated.method} ${path.slice(0, 200)} ${JSON.stringify(generated.headers).slice(0, 200)} body ${String(generated.body).slice(0, 200)} -> ${response.status} ${response.text.slice(0, 200)}`
        }
        if (response.status === 201 && generated.headers['idempotency-key'] === undefined) {
          const location = new URL(String(response.headers.location)).pathname
          const created = { path: location, body: response.text }
          if (location.startsWith('/api/v1/todos/')) todos.push(created)
          else members.push(created)
        }
        if (
          (generated.method === 'PUT' || generated.method === 'DELETE') &&
          (response.status === 200 || response.status === 204)
        ) {
          touched.add(path)
        }
      }

      for (let batch = 0; sent < REQUESTS_PER_DATABASE && failure === undefined; batch += 1) {
        const generated = fc.sample(request, { numRuns: BATCH, seed: SEED + batch })
        let next = 0
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (next < generated.length && failure === undefined) {
              const one = generated[next] as GeneratedRequest
              next += 1
              const path = pathOf(one)
              const headers = Object.fromEntries(
                Object.entries(one.headers).filter(([, value]) => value !== undefined),
              ) as Record<string, string>
              let response: HttpResponse
              try {
                response = await service.request(
                  one.method,
                  path,
                  one.body === undefined ? { headers } : { headers, body: one.body },
                )
              } catch (error) {
                failure ??= `no answer (${String(error).slice(0, 100)}): ${one.method} ${path.slice(0, 200)}`
                return
              }
              check(one, path, response)
            }
          }),
        )
        sent += generated.length
        rss.push(rssMb(service.pid))
      }

      // The heap settles over the first fifths: one sample there lands on a GC trough or a
      // peak by chance, so the warm figure is the median of the second fifth's samples.
      const secondFifth = rss
        .slice(Math.floor(rss.length / 5), Math.max(Math.floor((rss.length * 2) / 5), 1))
        .sort((a, b) => a - b)
      const warm = secondFifth[Math.floor(secondFifth.length / 2)] ?? rss.at(-1) ?? 0
      const settled = Math.min(...rss.slice(Math.floor((rss.length * 4) / 5)))
      console.log(
        `fuzzing on ${database.name}: ${sent.toLocaleString('en')} requests (seed ${SEED}), ` +
          `statuses ${JSON.stringify(statuses)}, ${todos.length} todos and ${members.length} members created, ` +
          `RSS ${rss[0]?.toFixed(0)} -> ${warm.toFixed(0)} (after warm-up) -> ${settled.toFixed(0)} MB (end); ` +
          `every 10,000 requests: ${rss
            .filter((_, index) => index % 5 === 4)
            .map((mb) => mb.toFixed(0))
            .join(' ')} MB`,
      )
      expect(failure).toBeUndefined()
      expect(sent).toBeGreaterThanOrEqual(REQUESTS_PER_DATABASE)
      expect(Object.keys(statuses).some((status) => Number(status) >= 500)).toBe(false)
      expect(settled - warm).toBeLessThan(RSS_GROWTH_LIMIT_MB)

      // Still serving, and what valid requests created and nothing changed is intact.
      const again = await service.request(
        'GET',
        `/api/v1/todos/${(keep.body as { todoId: string }).todoId}`,
      )
      expect(again.text).toBe(keep.text)
      for (const created of [...todos, ...members]) {
        if (touched.has(created.path)) continue
        const read = await service.request('GET', created.path)
        expect({ path: created.path, status: read.status, body: read.text }).toEqual({
          path: created.path,
          status: 200,
          body: created.body,
        })
      }
    })
  })
}
