import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JSON_TYPE } from '../helpers/api-errors.js'
import { type IsolatedDatabase, SQLITE_TARGET } from '../helpers/databases.js'
import type { HttpResponse } from '../helpers/http.js'
import { type IdentityProvider, startIdentityProvider } from '../helpers/identity-provider.js'
import { documentOf } from '../helpers/openapi-document.js'
import { HAS_REDIS, startRedis, type TestRedis } from '../helpers/redis.js'
import { startServer, type TestServer } from '../helpers/server.js'

if (!HAS_REDIS) console.log('Rate limit suites with Redis: SKIPPED, no /usr/bin/redis-server')

const UNREACHABLE =
  'rate limit counters: Redis unreachable, requests are served without a shared limit'

const listTodos = (server: TestServer, headers: Record<string, string> = {}) =>
  server.request('GET', '/api/v1/todos', { headers })

function expectOverLimit(response: HttpResponse, limit: number) {
  expect(response.status).toBe(429)
  expect(response.headers['content-type']).toBe(JSON_TYPE)
  expect(response.headers['ratelimit-limit']).toBe(String(limit))
  expect(response.headers['ratelimit-remaining']).toBe('0')
  const retryAfter = Number(response.headers['retry-after'])
  expect(retryAfter).toBeGreaterThan(0)
  expect(retryAfter).toBeLessThanOrEqual(60)
  expect(response.body).toEqual({
    code: 'e.ex.fw.6006',
    message: `Too many requests. Retry after ${retryAfter} seconds.`,
  })
}

/** Sends `count` requests through the given servers in turn; returns their statuses. */
async function statuses(servers: readonly TestServer[], count: number, headers = {}) {
  const seen: number[] = []
  for (let index = 0; index < count; index += 1) {
    seen.push((await listTodos(servers[index % servers.length] as TestServer, headers)).status)
  }
  return seen
}

describe('rate limit (RATE_LIMIT) in one instance', () => {
  let database: IsolatedDatabase
  let provider: IdentityProvider
  let limited: TestServer
  let authenticated: TestServer

  beforeAll(async () => {
    database = await SQLITE_TARGET.create()
    provider = await startIdentityProvider()
    limited = await startServer(database.config, { RATE_LIMIT: '5/minute' })
    authenticated = await startServer(database.config, {
      RATE_LIMIT: '3/minute',
      AUTH_JWKS_URL: provider.jwksUrl,
      AUTH_ISSUER: provider.issuer,
      AUTH_AUDIENCE: provider.audience,
    })
  })
  afterAll(async () => {
    await limited?.close()
    await authenticated?.close()
    await provider?.stop()
    await database?.drop()
  })

  it('does not count what is refused before any work: an unknown path, a method, an Accept without JSON', async () => {
    const refused = [
      await limited.request('GET', '/api/v1/nothing-here'),
      await limited.request('PATCH', '/api/v1/todos', { contract: false }),
      await limited.request('GET', '/api/v1/todos', { headers: { accept: 'application/xml' } }),
    ]
    expect(refused.map(({ status }) => status)).toEqual([404, 405, 406])
    for (const response of refused) expect(response.headers['ratelimit-limit']).toBeUndefined()
    // The next test's first request still finds the whole budget.
  })

  it('counts each client address, tells the state on every answer, and answers 429 past the limit', async () => {
    const first = await listTodos(limited)
    expect(first.status).toBe(200)
    expect(first.headers['ratelimit-limit']).toBe('5')
    expect(first.headers['ratelimit-remaining']).toBe('4')
    expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThan(0)
    expect(await statuses([limited], 4)).toEqual([200, 200, 200, 200])
    expectOverLimit(await listTodos(limited), 5)
    const ja = await listTodos(limited, { 'accept-language': 'ja' })
    expect((ja.body as { message: string }).message).toMatch(/^リクエストが多すぎます。\d+秒後/)
    // Health, metrics and the docs page are not the API: never limited.
    expect((await limited.request('GET', '/health/ready')).status).toBe(200)
    expect((await limited.request('GET', '/metrics')).status).toBe(200)
    expect((await limited.request('GET', '/api/docs/', { contract: false })).status).toBe(200)
  })

  it('counts an authenticated client by its token subject', async () => {
    const alice = {
      authorization: `Bearer ${await provider.token('todos:read', { claims: { sub: 'alice' } })}`,
    }
    const bob = {
      authorization: `Bearer ${await provider.token('todos:read', { claims: { sub: 'bob' } })}`,
    }
    expect(await statuses([authenticated], 3, alice)).toEqual([200, 200, 200])
    // Another subject, from the same address, has a budget of its own.
    expect(await statuses([authenticated], 3, bob)).toEqual([200, 200, 200])
    expectOverLimit(await listTodos(authenticated, alice), 3)
    expectOverLimit(await listTodos(authenticated, bob), 3)
    // Refused by authentication first, these do not count: a token without a subject is
    // counted by its address, which still has its whole budget afterwards.
    expect(await statuses([authenticated], 4)).toEqual([401, 401, 401, 401])
    const anonymous = {
      authorization: `Bearer ${await provider.token('todos:read', { claims: { sub: undefined } })}`,
    }
    expect(await statuses([authenticated], 3, anonymous)).toEqual([200, 200, 200])
    expectOverLimit(await listTodos(authenticated, anonymous), 3)
  })

  it('documents 429 with its headers on the API operations', async () => {
    // From the app itself: this client has used up its requests.
    const document = documentOf(limited.app)
    const tooMany = document.paths['/api/v1/todos']?.get?.responses['429']
    expect(Object.keys(tooMany?.headers ?? {})).toEqual(
      expect.arrayContaining([
        'Retry-After',
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
      ]),
    )
    expect(document.paths['/health/ready']?.get?.responses['429']).toBeUndefined()
  })
})

describe.skipIf(!HAS_REDIS)('rate limit shared through Redis (REDIS_URL)', () => {
  let database: IsolatedDatabase
  let redis: TestRedis
  let a: TestServer
  let b: TestServer

  beforeAll(async () => {
    database = await SQLITE_TARGET.create()
    redis = await startRedis()
    const settings = { RATE_LIMIT: '6/minute', REDIS_URL: redis.url }
    a = await startServer(database.config, settings)
    b = await startServer(database.config, settings)
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await redis?.stop()
    await database?.drop()
  })

  const ready = async (server: TestServer) =>
    (await server.request('GET', '/health/ready')).body as { checks?: Record<string, string> }

  it('counts a client across two instances', async () => {
    expect(await ready(a)).toEqual({ status: 'UP', checks: { database: 'UP', rateLimit: 'UP' } })
    expect(await statuses([a, b], 6)).toEqual([200, 200, 200, 200, 200, 200])
    expectOverLimit(await listTodos(a), 6)
    expectOverLimit(await listTodos(b), 6)
  })

  it('serves without a limit while Redis is down (fail open), says so, and limits again once it is back', async () => {
    await redis.stop()
    const served = await statuses([a, b], 10)
    expect(served).toEqual(Array(10).fill(200))
    expect(await ready(a)).toEqual({
      status: 'UP',
      checks: { database: 'UP', rateLimit: 'DEGRADED' },
    })
    const metrics = await a.request('GET', '/metrics')
    expect(metrics.text).toMatch(/^rate_limit_store_up 0$/m)
    expect(a.logs.some((line) => line.msg === UNREACHABLE)).toBe(true)

    // Said once per instance and outage, however many requests met it.
    for (const server of [a, b]) {
      expect(server.logs.filter((line) => line.msg === UNREACHABLE)).toHaveLength(1)
    }
    await redis.start()
    const deadline = Date.now() + 10_000
    while (
      (await ready(a)).checks?.rateLimit !== 'UP' ||
      (await ready(b)).checks?.rateLimit !== 'UP'
    ) {
      if (Date.now() > deadline) throw new Error('the instances did not reconnect to Redis')
      await sleep(100)
    }
    expect((await a.request('GET', '/metrics')).text).toMatch(/^rate_limit_store_up 1$/m)
    // Connected at start, and again now.
    expect(
      a.logs.filter((line) => line.msg === 'rate limit counters: Redis connected'),
    ).toHaveLength(2)
    // A new Redis (nothing kept on disk) counts from zero again, for both instances.
    expect(await statuses([a, b], 6)).toEqual([200, 200, 200, 200, 200, 200])
    expectOverLimit(await listTodos(b), 6)
  }, 30_000)
})
