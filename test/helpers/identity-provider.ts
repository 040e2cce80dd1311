import { randomUUID } from 'node:crypto'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type CryptoKey, exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT } from 'jose'

/**
 * How the key-set URL answers: the keys, `500`, never (the connection stays open with no
 * answer until the client gives up), or `200` with a body that is not JSON.
 */
export type KeySetAnswer = 'keys' | 'error' | 'hang' | 'not-json'

/**
 * A stand-in OpenID Connect provider on a loopback port: a JSON Web Key Set served over
 * HTTP (counting its fetches) and tokens signed with its keys, as a real provider's.
 */
export interface IdentityProvider {
  readonly jwksUrl: string
  readonly issuer: string
  readonly audience: string
  /** How many requests for the key set arrived, whatever they were answered. */
  readonly fetches: number
  /** From now on the key-set URL answers so (at first: `keys`). */
  answerWith(answer: KeySetAnswer): void
  /** A token of the current key with these scopes; `claims` and `header` override. */
  token(scope: string, options?: TokenOptions): Promise<string>
  /** A token signed by a key the provider never published, under the current key's id. */
  tokenOfAnotherKey(scope: string): Promise<string>
  /** A token with `alg: none` and no signature. */
  unsignedToken(scope: string): string
  /** A token whose HMAC is keyed with the published public key (the classic confusion). */
  hmacWithPublicKey(scope: string): Promise<string>
  /** Publishes a new key in place of the current one. */
  rotate(): Promise<void>
  /** Stops answering (connections refused), or starts again on the same port. */
  stop(): Promise<void>
  start(): Promise<void>
}

export interface TokenOptions {
  readonly claims?: Record<string, unknown>
  readonly kid?: string
  /** When the token expires; null: it has no `exp` claim at all. */
  readonly expiresIn?: string | number | null
}

interface SigningKey {
  readonly kid: string
  readonly privateKey: CryptoKey
  readonly publicKey: CryptoKey
  readonly jwk: JWK
}

async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true })
  const kid = randomUUID()
  return {
    kid,
    privateKey,
    publicKey,
    jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' },
  }
}

function answerKeySet(response: ServerResponse, answer: KeySetAnswer, key: SigningKey): void {
  if (answer === 'hang') return
  if (answer === 'error') {
    response.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error')
    return
  }
  response.writeHead(200, { 'content-type': answer === 'keys' ? 'application/json' : 'text/html' })
  response.end(answer === 'keys' ? JSON.stringify({ keys: [key.jwk] }) : '<html>Sign in</html>')
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

export async function startIdentityProvider(): Promise<IdentityProvider> {
  let key = await newKey()
  let fetches = 0
  let answer: KeySetAnswer = 'keys'
  let server: Server | undefined
  let port = 0
  const listen = async () => {
    server = createServer((request, response) => {
      if (request.url !== '/jwks.json') {
        response.writeHead(404).end()
        return
      }
      fetches += 1
      answerKeySet(response, answer, key)
    })
    await new Promise<void>((resolve) => server?.listen(port, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  }
  await listen()
  const origin = `http://127.0.0.1:${port}`
  const issuer = `${origin}/`
  const audience = 'todo-member-api'
  const claimsFor = (scope: string, extra: Record<string, unknown> = {}) => ({
    scope,
    sub: 'user-1',
    ...extra,
  })
  const signed = (
    signingKey: CryptoKey,
    kid: string,
    scope: string,
    options: TokenOptions = {},
  ) => {
    const jwt = new SignJWT({ iss: issuer, aud: audience, ...claimsFor(scope, options.claims) })
      .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? kid, typ: 'JWT' })
      .setIssuedAt()
    if (options.expiresIn !== null) jwt.setExpirationTime(options.expiresIn ?? '5m')
    return jwt.sign(signingKey)
  }
  return {
    jwksUrl: `${origin}/jwks.json`,
    issuer,
    audience,
    get fetches() {
      return fetches
    },
    answerWith: (next) => {
      answer = next
    },
    token: (scope, options) => signed(key.privateKey, key.kid, scope, options),
    tokenOfAnotherKey: async (scope) => signed((await newKey()).privateKey, key.kid, scope),
    unsignedToken: (scope) => {
      const now = Math.floor(Date.now() / 1000)
      const payload = { ...claimsFor(scope), iss: issuer, aud: audience, iat: now, exp: now + 300 }
      return `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(payload)}.`
    },
    hmacWithPublicKey: async (scope) =>
      new SignJWT(claimsFor(scope))
        .setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'JWT' })
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(await exportSPKI(key.publicKey))),
    rotate: async () => {
      key = await newKey()
    },
    stop: async () => {
      const closing = server
      server = undefined
      closing?.closeAllConnections()
      await new Promise((resolve) => closing?.close(resolve))
    },
    start: listen,
  }
}
