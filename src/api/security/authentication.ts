import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AuthConfig } from '../../config/settings.js'
import { ApiProblem } from '../errors/api-problem.js'
import { PROBLEMS } from '../errors/catalogue.js'
import { fetchAtMostOncePer } from './key-set-fetch-cooldown.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified token's `sub`, when authentication is on and the token has one. */
    authenticatedSubject: string | undefined
  }
}

/** The `scope` claim: space-separated (RFC 8693), or, as some providers send it, a list. */
function scopesOf(claim: unknown): readonly string[] {
  if (typeof claim === 'string') return claim.split(/\s+/)
  return Array.isArray(claim) ? claim.filter((scope) => typeof scope === 'string') : []
}

/** Asymmetric signatures only: `none`, and HMAC keyed with a public key, are refused. */
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]
/** Seconds a token's clocks (exp, nbf, iat) may disagree with ours. */
const CLOCK_TOLERANCE_S = 30
/** Milliseconds a key-set fetch may take, answer included. */
export const JWKS_TIMEOUT_MS = 5_000
/** Milliseconds fetched keys verify tokens without a refetch: jose's default. */
const KEY_SET_MAX_AGE_MS = 600_000
const REALM = 'api'

/**
 * Why a token was refused, by jose's error code, for the challenge: fixed words, never
 * the token's own text.
 */
const INVALID_TOKEN_REASONS: Readonly<Record<string, string>> = {
  ERR_JWT_EXPIRED: 'The token has expired',
  ERR_JWT_CLAIM_VALIDATION_FAILED:
    'The token is not for this issuer, audience or time, or has no expiry',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'The signature does not verify',
  ERR_JOSE_ALG_NOT_ALLOWED: 'The signing algorithm is not accepted',
  ERR_JWKS_NO_MATCHING_KEY: 'No key of the provider matches the token',
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: 'No single key of the provider matches the token',
  ERR_JWS_INVALID: 'The token is malformed',
  ERR_JWT_INVALID: 'The token is malformed',
  ERR_JOSE_NOT_SUPPORTED: 'The token uses an unsupported feature',
}

function challenge(attributes: Record<string, string> = {}): Record<string, string> {
  const parts = [`realm="${REALM}"`, ...Object.entries(attributes).map(([k, v]) => `${k}="${v}"`)]
  return { 'www-authenticate': `Bearer ${parts.join(', ')}` }
}

/** `Authorization: Bearer <token>` (the scheme in any case); undefined when absent or another scheme. */
function bearerToken(request: FastifyRequest): string | undefined {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(request.headers.authorization ?? '')
  return match?.[1]
}

/**
 * A failed verification as the answer, by its cause: the token's fault (401), or the
 * provider's (503, with Retry-After: the key set is not fetched again before the
 * cooldown has passed). Any other failure is thrown on, to be the service's 500.
 */
function refusal(error: unknown, cooldownMs: number): ApiProblem {
  // The key set could not be fetched or read (timeout, refused, not JSON), or its last
  // fetch failed less than a cooldown ago: fail closed.
  if (error instanceof KeySetUnavailable) {
    return new ApiProblem(PROBLEMS.identityProviderUnavailable, {
      headers: { 'retry-after': String(Math.ceil(cooldownMs / 1000)) },
    })
  }
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && Object.hasOwn(INVALID_TOKEN_REASONS, code)) {
    return new ApiProblem(PROBLEMS.unauthenticated, {
      headers: challenge({
        error: 'invalid_token',
        error_description: INVALID_TOKEN_REASONS[code] ?? '',
      }),
    })
  }
  // No known cause: the service's own failure (500, logged), not a guess.
  throw error
}

/** The provider could not give its key set: its failure, not the token's. */
class KeySetUnavailable extends Error {
  override readonly name = 'KeySetUnavailable'
}

/** Failures of a key lookup that are the token's: a key id the set lacks, or one of several. */
const TOKEN_KEY_FAULTS: ReadonlySet<string> = new Set([
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
])

/**
 * The key lookup, with every failure of its own but the token's told apart as the
 * provider's (jose's timeouts, an answer that is no key set, a refused connection, a
 * fetch held back by the cooldown): each refusal then names its cause.
 */
function failingAsProvider<Get extends (...args: never[]) => Promise<unknown>>(getKey: Get): Get {
  return (async (...args: Parameters<Get>) => {
    try {
      return await getKey(...args)
    } catch (error) {
      const code = (error as { code?: unknown }).code
      if (typeof code === 'string' && TOKEN_KEY_FAULTS.has(code)) throw error
      throw new KeySetUnavailable('the key set could not be fetched or read', { cause: error })
    }
  }) as Get
}

/**
 * With AUTH_* set: every /api/v1 operation that names a resource needs a bearer JWT
 * signed by a key of the provider's JWKS, for its issuer and audience, unexpired, whose
 * `scope` claim (space-separated) grants the operation's scope. Runs before the body is
 * read, so nothing of an unauthenticated request is parsed.
 */
export async function requireBearerTokens(
  context: FastifyInstance,
  auth: AuthConfig,
): Promise<void> {
  // Loaded only when authentication is on: otherwise it would only slow the start.
  const { createRemoteJWKSet, customFetch, jwtVerify } = await import('jose')
  context.decorateRequest('authenticatedSubject', undefined)
  // The key set is cached; a token naming an unknown key (the provider rotated its keys)
  // fetches it again. Whatever the provider answers, a fetch starts at most once per
  // cooldown (AUTH_JWKS_COOLDOWN), so neither a flood of made-up key ids nor a failing
  // provider makes the service hammer it.
  const remoteKeys = createRemoteJWKSet(new URL(auth.jwksUrl), {
    cooldownDuration: auth.jwksCooldownMs,
    // Keys are kept at least a cooldown: past their age jose refetches for every token,
    // which the cooldown would refuse, failing tokens of keys it has.
    cacheMaxAge: Math.max(KEY_SET_MAX_AGE_MS, auth.jwksCooldownMs),
    timeoutDuration: JWKS_TIMEOUT_MS,
    [customFetch]: fetchAtMostOncePer(auth.jwksCooldownMs),
  })
  const keys = failingAsProvider(remoteKeys)
  context.addHook('onRequest', async (request) => {
    // Declared by the route itself (route-policy.ts).
    const { scope } = request.routeOptions.config
    if (scope === undefined || scope === 'public') return
    const token = bearerToken(request)
    if (token === undefined)
      throw new ApiProblem(PROBLEMS.unauthenticated, { headers: challenge() })
    let granted: readonly string[]
    let subject: string | undefined
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: auth.issuer,
        audience: auth.audience,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
        // A token that never expires is refused (OWASP's JWT guidance): a leaked one
        // would stay good for ever.
        requiredClaims: ['exp'],
      })
      granted = scopesOf(payload.scope)
      subject = payload.sub
    } catch (error) {
      const problem = refusal(error, auth.jwksCooldownMs)
      if (problem.status === 503)
        request.log.warn({ err: error }, 'identity provider keys unavailable')
      else request.log.info({ reason: (error as { code?: string }).code }, 'bearer token refused')
      throw problem
    }
    request.authenticatedSubject = subject
    if (!granted.includes(scope)) {
      throw new ApiProblem(PROBLEMS.insufficientScope, {
        args: [scope],
        headers: challenge({ error: 'insufficient_scope', scope }),
      })
    }
  })
}
