import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { JSON_TYPE } from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import type { HttpResponse } from '../helpers/http.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * Generated hostile requests: whatever arrives, the answer is a contract status with an
 * ApiError body (or the success shape), never a 5xx, and stored data stays intact.
 */
const RUNS = 300
const SUCCESS = new Set([200, 201, 204, 304])
const CONTRACT_ERRORS = new Set([400, 404, 405, 406, 409, 412, 413, 415])

const oddText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '\u0000',
    '\ud800',
    '\udfff',
    '😀'.repeat(40),
    'a'.repeat(5000),
    "'; drop table todo; --",
    '%_\\',
  ),
)
const jsonValue = fc.oneof(
  oddText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -0, 1e308),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
)
const todoLike = fc.record(
  {
    todoId: jsonValue,
    todoTitle: jsonValue,
    finished: jsonValue,
    createdAt: jsonValue,
    extra: jsonValue,
  },
  { requiredKeys: [] },
)
const deeplyNested = fc
  .integer({ min: 1, max: 5000 })
  .map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`)
const rawBody = fc.oneof(
  todoLike.map((body) => JSON.stringify(body)),
  jsonValue.map((value) => JSON.stringify(value) ?? ''),
  fc.string(),
  fc.constantFrom(
    '',
    '{',
    '{"todoTitle":',
    'null',
    '[]',
    '{"__proto__":{"x":1}}',
    '{"constructor":{}}',
  ),
  deeplyNested,
  fc.constantFrom(`{"todoTitle":"${'x'.repeat(70_000)}"}`),
)
const header = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    '*/*',
    'application/json',
    'application/xml',
    'text/html;q=0.9, */*;q=0.1',
    ';;;',
    'a/b/c',
    '*;q=abc',
  ),
  fc.string({ maxLength: 40 }).filter((value) => /^[\x20-\x7e]*$/.test(value)),
)
const contentType = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    'application/json',
    'APPLICATION/JSON; charset=utf-8',
    'application/json; charset=latin1',
    'application/json;',
    'text/plain',
    'application/x-www-form-urlencoded',
    '/',
    'multipart/form-data; boundary=x',
  ),
)
const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE')
const path = fc.oneof(
  fc.constantFrom(
    '/api/v1/todos',
    '/api/v1/todos/',
    '/api/v1',
    '/',
    '/api/v2/todos',
    '/api/v1/todos/%ZZ',
  ),
  fc.string({ maxLength: 50 }).map((id) => `/api/v1/todos/${encodeURIComponent(id)}`),
  fc.string({ maxLength: 30 }).map((suffix) => `/api/v1/${encodeURIComponent(suffix)}`),
)

function expectContractAnswer(response: HttpResponse, requestMethod: string) {
  expect(response.status).toBeLessThan(500)
  expect([...SUCCESS, ...CONTRACT_ERRORS]).toContain(response.status)
  if (CONTRACT_ERRORS.has(response.status) && requestMethod !== 'HEAD') {
    expect(response.headers['content-type']).toBe(JSON_TYPE)
    const body = response.body as { code?: unknown; message?: unknown }
    expect(typeof body.code).toBe('string')
    expect(typeof body.message).toBe('string')
  }
  expect(response.headers['set-cookie']).toBeUndefined()
}

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`hostile input on ${target.name}`, () => {
    const suite = serverPerSuite(target)

    it(`answers ${RUNS} generated requests within the contract and keeps stored data intact`, async () => {
      const server = suite.server
      const created = await server.request('POST', '/api/v1/todos', {
        body: { todoTitle: 'keep me' },
      })
      const keep = created.body as { todoId: string }

      await fc.assert(
        fc.asyncProperty(
          method,
          path,
          rawBody,
          contentType,
          header,
          header,
          async (verb, url, body, type, accept, language) => {
            const headers: Record<string, string> = {}
            if (type !== undefined) headers['content-type'] = type
            if (accept !== undefined) headers.accept = accept
            if (language !== undefined) headers['accept-language'] = language
            const withBody = verb !== 'GET' && verb !== 'HEAD'
            const response = await server.request(
              verb,
              url,
              withBody ? { headers, body } : { headers },
            )
            expectContractAnswer(response, verb)
          },
        ),
        { numRuns: RUNS },
      )

      const survivor = await server.request('GET', `/api/v1/todos/${keep.todoId}`)
      expect(survivor.status).toBe(200)
      expect(survivor.body).toEqual(created.body)
    })
  })
}
