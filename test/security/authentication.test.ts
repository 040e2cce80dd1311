import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { JWKS_TIMEOUT_MS } from '../../src/api/security/authentication.js'
import { JSON_TYPE } from '../helpers/api-errors.js'
import { type IsolatedDatabase, SQLITE_TARGET } from '../helpers/databases.js'
import { type IdentityProvider, startIdentityProvider } from '../helpers/identity-provider.js'
import { startServer, type TestServer } from '../helpers/server.js'

const COOLDOWN_MS = 1000
/** The refusal's words for a token of another issuer, audience or time, or without expiry. */
const NOT_FOR_US = 'The token is not for this issuer, audience or time, or has no expiry'

const authSettings = (provider: IdentityProvider) => ({
  AUTH_JWKS_URL: provider.jwksUrl,
  AUTH_ISSUER: provider.issuer,
  AUTH_AUDIENCE: provider.audience,
  AUTH_JWKS_COOLDOWN: String(COOLDOWN_MS),
})

/**
 * A stand-in provider and a server that trusts it: once for the enclosing describe block,
 * or fresh for each of its tests.
 */
function authenticatedServerPer(scope: 'suite' | 'test') {
  const [before, after] = scope === 'suite' ? [beforeAll, afterAll] : [beforeEach, afterEach]
  const suite = {} as { provider: IdentityProvider; database: IsolatedDatabase; server: TestServer }
  before(async () => {
    suite.provider = await startIdentityProvider()
    suite.database = await SQLITE_TARGET.create()
    suite.server = await startServer(suite.database.config, authSettings(suite.provider))
  })
  after(async () => {
    await suite.server?.close()
    await suite.provider?.stop()
    await suite.database?.drop()
  })
  return suite
}

/**
 * OpenID Connect bearer authentication (AUTH_*), against a stand-in provider serving a
 * real JSON Web Key Set over HTTP, with tokens signed by jose as a provider's are.
 */
describe('authentication with bearer tokens from an OpenID Connect provider', () => {
  const suite = authenticatedServerPer('suite')

  const call = (method: string, path: string, token?: string, body?: unknown, language?: string) =>
    suite.server.request(method, `/api/v1${path}`, {
      headers: {
        ...(token !== undefined && { authorization: `Bearer ${token}` }),
        ...(language !== undefined && { 'accept-language': language }),
      },
      ...(body !== undefined && { body }),
    })

  const expectRefused = (
    response: Awaited<ReturnType<typeof call>>,
    challenge: string,
    code = 'e.ex.fw.6004',
  ) => {
    expect(response.status).toBe(code === 'e.ex.fw.6005' ? 403 : 401)
    expect(response.headers['content-type']).toBe(JSON_TYPE)
    expect(response.headers['www-authenticate']).toBe(challenge)
    expect((response.body as { code: string }).code).toBe(code)
  }

  const invalid = (why: string) =>
    `Bearer realm="api", error="invalid_token", error_description="${why}"`

  it('answers 401 with a bearer challenge when no token is sent, and stores nothing', async () => {
    const response = await call('POST', '/todos', undefined, { todoTitle: 'Not stored' })
    expectRefused(response, 'Bearer realm="api"')
    expect(response.body).toEqual({
      code: 'e.ex.fw.6004',
      message: 'Authentication required: a valid bearer token.',
    })
    // Checked before the body is read: a body that is not even JSON is still 401.
    const unread = await suite.server.request('POST', '/api/v1/todos', {
      headers: { 'content-type': 'application/json' },
      body: '{"todoTitle": ',
    })
    expectRefused(unread, 'Bearer realm="api"')
    const other = await call('GET', '/members', undefined, undefined, 'ja')
    expect((other.body as { message: string }).message).toBe(
      '認証が必要です。有効なベアラートークンを指定してください。',
    )
    const list = await call('GET', '/todos', await suite.provider.token('todos:read'))
    expect(list.body).toEqual([])
  })

  it('serves a token with the scope, and answers 403 naming the scope a token lacks', async () => {
    const reader = await suite.provider.token('todos:read members:read')
    expect((await call('GET', '/todos', reader)).status).toBe(200)
    expect((await call('GET', '/members?name=A', reader)).status).toBe(200)
    const forbidden = await call('POST', '/todos', reader, { todoTitle: 'Not mine to write' })
    expectRefused(
      forbidden,
      'Bearer realm="api", error="insufficient_scope", scope="todos:write"',
      'e.ex.fw.6005',
    )
    expect((forbidden.body as { message: string }).message).toBe(
      'The bearer token lacks the scope this operation needs. scope : todos:write',
    )
    const writer = await suite.provider.token('todos:write')
    const created = await call('POST', '/todos', writer, { todoTitle: 'Written' })
    expect(created.status).toBe(201)
    const todoId = (created.body as { todoId: string }).todoId
    expect((await call('HEAD', `/todos/${todoId}`, reader)).status).toBe(200)
    expect((await call('HEAD', `/todos/${todoId}`)).status).toBe(401)
    // A list of scopes, as some providers send the claim, and extra spaces, count too.
    const listed = await suite.provider.token('', { claims: { scope: ['todos:write'] } })
    expect((await call('POST', '/todos', listed, { todoTitle: 'Listed' })).status).toBe(201)
    const spaced = await suite.provider.token('  members:read   todos:write ')
    expect((await call('POST', '/todos', spaced, { todoTitle: 'Spaced' })).status).toBe(201)
    expect((await call('DELETE', `/todos/${todoId}`, reader)).status).toBe(403)
    expect((await call('DELETE', `/todos/${todoId}`, writer)).status).toBe(204)
    // The scope is per resource: members:write does not write todos.
    const membersWriter = await suite.provider.token('members:write')
    expect((await call('POST', '/todos', membersWriter, { todoTitle: 'x' })).status).toBe(403)
  })

  it('refuses a token that never expires (no exp claim), however valid otherwise', async () => {
    const forever = await suite.provider.token('todos:read', { expiresIn: null })
    expect(
      JSON.parse(Buffer.from(forever.split('.')[1] ?? '', 'base64url').toString()),
    ).not.toHaveProperty('exp')
    expectRefused(await call('GET', '/todos', forever), invalid(NOT_FOR_US))
  })

  it('refuses expired tokens past a 30 s clock allowance, and those of another issuer or audience', async () => {
    const now = Math.floor(Date.now() / 1000)
    expectRefused(
      await call(
        'GET',
        '/todos',
        await suite.provider.token('todos:read', { expiresIn: now - 60 }),
      ),
      invalid('The token has expired'),
    )
    expect(
      (
        await call(
          'GET',
          '/todos',
          await suite.provider.token('todos:read', { expiresIn: now - 10 }),
        )
      ).status,
    ).toBe(200)
    const otherIssuer = await suite.provider.token('todos:read', {
      claims: { iss: 'https://evil.example/' },
    })
    expectRefused(await call('GET', '/todos', otherIssuer), invalid(NOT_FOR_US))
    const otherAudience = await suite.provider.token('todos:read', {
      claims: { aud: 'another-api' },
    })
    expectRefused(await call('GET', '/todos', otherAudience), invalid(NOT_FOR_US))
  })

  it('refuses forged tokens: another key, alg none, HMAC keyed with the public key, garbage', async () => {
    expectRefused(
      await call('GET', '/todos', await suite.provider.tokenOfAnotherKey('todos:read')),
      invalid('The signature does not verify'),
    )
    expectRefused(
      await call('GET', '/todos', suite.provider.unsignedToken('todos:read')),
      invalid('The signing algorithm is not accepted'),
    )
    expectRefused(
      await call('GET', '/todos', await suite.provider.hmacWithPublicKey('todos:read')),
      invalid('The signing algorithm is not accepted'),
    )
    expectRefused(await call('GET', '/todos', 'not.a.jwt'), invalid('The token is malformed'))
    const basic = await suite.server.request('GET', '/api/v1/todos', {
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
    })
    expectRefused(basic, 'Bearer realm="api"')
  })

  it('follows a key rotation, fetching the key set at most once per cooldown for unknown keys', async () => {
    await sleep(COOLDOWN_MS)
    const before = suite.provider.fetches
    const started = Date.now()
    for (let index = 0; index < 30; index += 1) {
      const made_up = await suite.provider.token('todos:read', { kid: randomUUID() })
      expect((await call('GET', '/todos', made_up)).status).toBe(401)
    }
    const allowed = 1 + Math.ceil((Date.now() - started) / COOLDOWN_MS)
    expect(suite.provider.fetches - before).toBeLessThanOrEqual(allowed)

    const old = await suite.provider.token('todos:read')
    await suite.provider.rotate()
    await sleep(COOLDOWN_MS)
    expect((await call('GET', '/todos', await suite.provider.token('todos:read'))).status).toBe(200)
    // The refetched key set no longer has the old key.
    expect((await call('GET', '/todos', old)).status).toBe(401)
  })

  it('leaves health, metrics, the docs page, the OpenAPI document and OPTIONS open', async () => {
    expect((await suite.server.request('GET', '/health/ready')).status).toBe(200)
    expect((await suite.server.request('GET', '/health/live')).status).toBe(200)
    expect((await suite.server.request('GET', '/metrics')).status).toBe(200)
    expect((await suite.server.request('GET', '/api/docs/', { contract: false })).status).toBe(200)
    expect((await suite.server.request('OPTIONS', '/api/v1/todos')).status).toBe(200)
    const document = await suite.server.request('GET', '/api/v1/openapi.json')
    expect(document.status).toBe(200)
  })

  it('declares the bearer scheme and each operation’s scope in the OpenAPI document', async () => {
    const document = (await suite.server.request('GET', '/api/v1/openapi.json')).body as {
      components: { securitySchemes: Record<string, { type: string; scheme: string }> }
      paths: Record<
        string,
        Record<string, { security?: unknown; responses: Record<string, unknown> }>
      >
    }
    expect(document.components.securitySchemes.bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    })
    const scopes = Object.fromEntries(
      Object.entries(document.paths).flatMap(([path, operations]) =>
        Object.entries(operations).map(([method, operation]) => [
          `${method.toUpperCase()} ${path}`,
          operation.security,
        ]),
      ),
    )
    expect(scopes['GET /api/v1/todos']).toEqual([{ bearer: ['todos:read'] }])
    expect(scopes['POST /api/v1/todos']).toEqual([{ bearer: ['todos:write'] }])
    expect(scopes['HEAD /api/v1/members/{memberId}']).toEqual([{ bearer: ['members:read'] }])
    expect(scopes['PUT /api/v1/members/{memberId}']).toEqual([{ bearer: ['members:write'] }])
    expect(scopes['OPTIONS /api/v1/todos']).toBeUndefined()
    expect(scopes['GET /health/ready']).toBeUndefined()
    const post = document.paths['/api/v1/todos']?.post?.responses ?? {}
    expect(Object.keys(post)).toEqual(expect.arrayContaining(['401', '403', '503']))
  })
})

/**
 * jose waits its cooldown only after a fetch that succeeded; the service waits it after
 * every fetch, whatever the provider answered, and requests share the fetch in flight.
 */
describe('authentication while the provider fails', () => {
  const suite = authenticatedServerPer('test')

  const read = async (token: string) =>
    suite.server.request('GET', '/api/v1/todos', { headers: { authorization: `Bearer ${token}` } })

  const unknownKeyTokens = (count: number) =>
    Promise.all(
      Array.from({ length: count }, () =>
        suite.provider.token('todos:read', { kid: randomUUID() }),
      ),
    )

  const expectUnavailable = (response: Awaited<ReturnType<typeof read>>) => {
    expect(response.status).toBe(503)
    expect(response.headers['content-type']).toBe(JSON_TYPE)
    expect(response.body).toEqual({
      code: 'e.ex.fw.9004',
      message: 'Authentication is unavailable: the identity provider does not answer.',
    })
  }

  /** How many key-set fetches the provider received while `run` ran. */
  const fetchesDuring = async (run: () => Promise<unknown>) => {
    const before = suite.provider.fetches
    await run()
    return suite.provider.fetches - before
  }

  /** The tokens one after another, all within one cooldown, each answered 503. */
  const unavailableInARow = async (tokens: readonly string[]) => {
    const started = Date.now()
    for (const token of tokens) expectUnavailable(await read(token))
    expect(Date.now() - started).toBeLessThan(COOLDOWN_MS)
  }

  it('answering 500: 15 unknown key ids within a cooldown cost one fetch, one more only after it, and the recovery is followed', async () => {
    suite.provider.answerWith('error')
    const tokens = await unknownKeyTokens(15)
    expect(await fetchesDuring(() => unavailableInARow(tokens))).toBe(1)
    await sleep(COOLDOWN_MS)
    expect(await fetchesDuring(() => unavailableInARow(tokens))).toBe(1)

    suite.provider.answerWith('keys')
    const valid = await suite.provider.token('todos:read')
    // Within the cooldown of the failed fetch the provider is not asked, though it is back.
    expect(await fetchesDuring(() => unavailableInARow([valid]))).toBe(0)
    await sleep(COOLDOWN_MS)
    expect(await fetchesDuring(async () => expect((await read(valid)).status).toBe(200))).toBe(1)
  })

  it('hanging: concurrent requests share one fetch, answered 503 at its timeout, and the cooldown starts then', async () => {
    suite.provider.answerWith('hang')
    const tokens = await unknownKeyTokens(15)
    const started = Date.now()
    const burst = await fetchesDuring(async () => {
      for (const response of await Promise.all(tokens.map(read))) expectUnavailable(response)
    })
    const waited = Date.now() - started
    expect(burst).toBe(1)
    expect(waited).toBeGreaterThanOrEqual(JWKS_TIMEOUT_MS - 100)
    expect(waited).toBeLessThan(JWKS_TIMEOUT_MS + COOLDOWN_MS)
    const [first = '', second = ''] = tokens
    expect(await fetchesDuring(async () => expectUnavailable(await read(first)))).toBe(0)
    await sleep(COOLDOWN_MS)
    expect(await fetchesDuring(async () => expectUnavailable(await read(second)))).toBe(1)
  }, 30_000)

  it('answering what is not JSON: fetched keys still verify, unknown key ids cost one fetch per cooldown', async () => {
    const known = await suite.provider.token('todos:read')
    expect(await fetchesDuring(async () => expect((await read(known)).status).toBe(200))).toBe(1)
    suite.provider.answerWith('not-json')
    await suite.provider.rotate()
    await sleep(COOLDOWN_MS)
    const tokens = await unknownKeyTokens(15)
    expect(await fetchesDuring(() => unavailableInARow(tokens))).toBe(1)
    expect(await fetchesDuring(async () => expect((await read(known)).status).toBe(200))).toBe(0)
    await sleep(COOLDOWN_MS)
    expect(await fetchesDuring(() => unavailableInARow(tokens))).toBe(1)

    suite.provider.answerWith('keys')
    await sleep(COOLDOWN_MS)
    const rotated = await suite.provider.token('todos:read')
    expect(await fetchesDuring(async () => expect((await read(rotated)).status).toBe(200))).toBe(1)
  })

  it('refusing connections: fails closed, keeps using keys it has, and asks again only after the cooldown', async () => {
    const known = await suite.provider.token('todos:read')
    await suite.provider.stop()
    // No key fetched yet: nothing can be verified.
    await unavailableInARow([known, known, known])
    await suite.provider.start()
    expect(await fetchesDuring(() => unavailableInARow([known]))).toBe(0)
    await sleep(COOLDOWN_MS)
    expect(await fetchesDuring(async () => expect((await read(known)).status).toBe(200))).toBe(1)
    // Down again: the fetched key still verifies its tokens; an unknown key cannot be looked up.
    await suite.provider.stop()
    expect((await read(await suite.provider.token('todos:read'))).status).toBe(200)
    await sleep(COOLDOWN_MS)
    await unavailableInARow(await unknownKeyTokens(3))
    await suite.provider.start()
  })
})
