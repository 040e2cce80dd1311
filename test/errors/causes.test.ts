import { describe, expect, it } from 'vitest'
import { METHOD_NOT_SUPPORTED, NOT_FOUND, PARAMETER_TYPE_MISMATCH } from '../helpers/api-errors.js'
import { SQLITE_TARGET } from '../helpers/databases.js'
import { causeViolations } from '../helpers/error-causes.js'
import { type RawExchange, rawExchange, rawRequest } from '../helpers/raw-http.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * Every refusal names its cause, whichever part of the service raised it (decisions §2):
 * the libraries beneath the service (Node's parser, Fastify, @fastify/static and send)
 * included. Each request goes byte for byte over a raw connection, since an HTTP client
 * would normalise most of them (`/..`, a lower-case method). Every answer is also held
 * to the catalogue by causeViolations: its status is its code's, no placeholder is left.
 */

const FEATURES_OFF = { authentication: false, rateLimit: false }
const CSS = '/api/docs/static/swagger-ui.css'

function describeExchange(exchanged: RawExchange): string {
  return exchanged.raw.toString('latin1').slice(0, 600)
}

describe('the cause each refusal names (SQLite)', () => {
  const suite = serverPerSuite(SQLITE_TARGET)

  async function answerTo(bytes: string | Buffer) {
    const exchanged = await rawExchange(suite.server.baseUrl, bytes, {
      responses: 1,
      timeoutMs: 3000,
    })
    const [answer] = exchanged.responses
    expect(answer, describeExchange(exchanged)).toBeDefined()
    expect(causeViolations(answer?.status ?? 0, answer?.json, FEATURES_OFF)).toEqual([])
    expect(answer?.headers['content-type']).toBe('application/json;charset=UTF-8')
    return answer
  }

  it.each(['%7B%7D', '%7Bid%7D', '%7B0'])(
    'puts an id with braces (%s) in its message as it is, a value and no placeholder',
    async (id) => {
      const answer = await answerTo(rawRequest('GET', `/api/v1/todos/${id}`))
      expect(answer?.status).toBe(404)
      expect(answer?.json).toEqual({
        code: 'e.ex.td.5001',
        message: `Specified todo not found. todo id : ${decodeURIComponent(id)}`,
      })
    },
  )

  it('tells a placeholder of the catalogue left in a message from braces in a value', () => {
    const notFound = (id: string) => ({
      code: 'e.ex.td.5001',
      message: `Specified todo not found. todo id : ${id}`,
    })
    expect(causeViolations(404, notFound('{}'), FEATURES_OFF)).toEqual([])
    expect(causeViolations(404, notFound('{0}'), FEATURES_OFF)).toEqual([
      'unfilled placeholder in "Specified todo not found. todo id : {0}"',
    ])
  })

  it.each([
    '/api/docs/static/%2e%2e/%2e%2e/package.json',
    '/api/docs/static/%2E%2E/package.json',
    '/api/docs/static/../../package.json',
    '/api/docs/static/./swagger-ui.css/../../../package.json',
    '/api/docs/static//etc/passwd',
    '/api/docs/static/..%2f..%2fpackage.json',
    '/api/docs/static/%00',
    '/api/docs/static/.hidden',
    '/api/docs/static/',
    '/assets/..%2f..%2fpackage.json',
    '/assets/%2e%2e/%2e%2e/package.json',
    '/assets/../../package.json',
    '//package.json',
  ])(
    'GET %s (a path that leaves or misses the served folder) -> 404 e.ex.fw.5001',
    async (path) => {
      const answer = await answerTo(rawRequest('GET', path))
      expect(answer?.status).toBe(404)
      expect(answer?.json).toEqual(NOT_FOUND)
    },
  )

  it('answers a Range no byte satisfies with 416 and Content-Range (RFC 9110 §15.5.17)', async () => {
    const whole = await rawExchange(suite.server.baseUrl, rawRequest('GET', CSS), { responses: 1 })
    const length = whole.responses[0]?.body.length ?? 0
    expect(length).toBeGreaterThan(0)
    const answer = await answerTo(
      rawRequest('GET', CSS, { headers: { Range: 'bytes=999999999-' } }),
    )
    expect(answer?.status).toBe(416)
    expect(answer?.headers['content-range']).toBe(`bytes */${length}`)
    expect(answer?.json).toMatchObject({ code: 'e.ex.fw.7006', target: 'Range' })
  })

  it('answers an If-Match no file version meets with 412 e.ex.fw.8002', async () => {
    const answer = await answerTo(rawRequest('GET', CSS, { headers: { 'If-Match': '"other"' } }))
    expect(answer?.status).toBe(412)
    expect(answer?.json).toMatchObject({ code: 'e.ex.fw.8002' })
  })

  it.each([
    ['FOO', '/api/v1/todos'],
    ['get', '/api/v1/todos'],
    ['Get', '/api/v1/members/abcdefghij'],
    ['QUERY', '/api/v1/todos'],
    ['PROPFIND', '/api/v1/todos'],
    ['BREW', '/health/live'],
  ])('%s %s (a method token the path does not serve) -> 405 with Allow', async (method, path) => {
    const answer = await answerTo(rawRequest(method, path))
    expect(answer?.status).toBe(405)
    expect(answer?.json).toEqual(METHOD_NOT_SUPPORTED)
    expect(answer?.headers.allow).toMatch(/^GET, HEAD/)
  })

  it.each([
    ['FOO', '/nowhere'],
    ['get', '/api/v1/nothing'],
    ['QUERY', '/nowhere'],
  ])('%s %s (any method token on an unknown path) -> 404', async (method, path) => {
    const answer = await answerTo(rawRequest(method, path))
    expect(answer?.status).toBe(404)
    expect(answer?.json).toEqual(NOT_FOUND)
  })

  it.each([
    ['with a JSON body', { 'Content-Type': 'application/json' }, '{"todoTitle":"x"}'],
    ['with a body of another type', { 'Content-Type': 'text/plain' }, 'x'],
    ['with a body and no Content-Type', {}, '{}'],
  ])(
    'QUERY /api/v1/todos %s -> 405 before the body is looked at',
    async (_label, headers, body) => {
      const answer = await answerTo(rawRequest('QUERY', '/api/v1/todos', { headers, body }))
      expect(answer?.status).toBe(405)
      expect(answer?.json).toEqual(METHOD_NOT_SUPPORTED)
    },
  )

  it('answers a method Node refuses after the requests before it, in order, and closes', async () => {
    const exchanged = await rawExchange(
      suite.server.baseUrl,
      Buffer.concat([rawRequest('GET', '/health/live'), rawRequest('FOO', '/api/v1/todos')]),
      { timeoutMs: 3000 },
    )
    expect(exchanged.responses.map((response) => response.status)).toEqual([200, 405])
    expect(exchanged.closedByServer).toBe(true)
  })

  it.each([
    ['a method that is no token', 'G(T /api/v1/todos HTTP/1.1\r\nHost: x\r\n\r\n', 'method'],
    ['a method without a target', 'FOO\r\nHost: x\r\n\r\n', 'request-target'],
    ['a target that is no path', 'FOO * HTTP/1.1\r\nHost: x\r\n\r\n', 'request-target'],
  ])(
    '%s -> 400 e.ex.fw.7006 naming %s (the request line, not the body)',
    async (_label, bytes, target) => {
      const answer = await answerTo(bytes)
      expect(answer?.status).toBe(400)
      expect(answer?.json).toEqual({ ...PARAMETER_TYPE_MISMATCH, target })
    },
  )
})
