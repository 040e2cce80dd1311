import type { AdmissionLimits } from '../domain/common/admission.js'
import type { DatabaseConfig } from '../infra/db/database-config.js'
import { parseServerOptions } from '../infra/db/postgres/session-settings.js'
import { type Composition, ConfigError, type Env, type ValuesOf } from './setting-table.js'
import type { SETTINGS } from './settings.js'

/**
 * The fields of Config made of several settings of the table (settings.ts), each named
 * once here with the settings it folds: the settings must be checked together, or are
 * used together. Every other setting is a field of Config as it parses. Only the table's
 * type comes from settings.ts, which imports this file: no import cycle at run time.
 */

type Values = ValuesOf<typeof SETTINGS>

function composed<const Key extends keyof Values, T>(
  from: readonly Key[],
  compose: (values: Values, env: Env) => T,
): Composition<Values, Key, T> {
  return { from, compose }
}

/** Behind a transaction pooler the URL's `options` are set per transaction: only settings qualify. */
function checkOptionsForPooler(url: string): void {
  try {
    parseServerOptions(new URL(url).searchParams.get('options') ?? '')
  } catch (error) {
    throw new ConfigError(
      `Invalid database URL for DB_POOLER=transaction: ${(error as Error).message}`,
    )
  }
}

/**
 * A URL with DATABASE_PASSWORD in it, encoded as pg decodes it: the password may hold any
 * character, and the URL is never shown with it (start-failure.ts leaves it out).
 */
function withPassword(url: string, password: string | undefined, name: string): string {
  if (password === undefined) return url
  const parsed = new URL(url)
  if (parsed.password !== '') {
    throw new ConfigError(`${name} holds a password and DATABASE_PASSWORD gives one: keep one`)
  }
  parsed.password = encodeURIComponent(password)
  return parsed.toString()
}

/** DATABASE_URL, with what only PostgreSQL has: the pool, the pooler, prepared statements, a replica. */
function database({
  database: configured,
  databasePassword: password,
  dbPoolMax: poolMax,
  dbPooler: pooler,
  dbPreparedStatements: prepared,
  databaseReadUrl: configuredReadUrl,
}: Values): DatabaseConfig {
  if (password !== undefined && configured.kind !== 'postgres') {
    throw new ConfigError('DATABASE_PASSWORD needs a PostgreSQL DATABASE_URL')
  }
  const primary =
    configured.kind === 'postgres'
      ? { ...configured, url: withPassword(configured.url, password, 'DATABASE_URL') }
      : configured
  const readUrl =
    configuredReadUrl && withPassword(configuredReadUrl, password, 'DATABASE_READ_URL')
  if (readUrl !== undefined && primary.kind !== 'postgres') {
    throw new ConfigError('DATABASE_READ_URL needs a PostgreSQL DATABASE_URL (a replica of it)')
  }
  if (pooler === 'transaction' && primary.kind !== 'postgres') {
    throw new ConfigError('DB_POOLER=transaction needs a PostgreSQL DATABASE_URL')
  }
  if (primary.kind === 'postgres' && pooler === 'transaction') {
    for (const url of [primary.url, readUrl]) if (url) checkOptionsForPooler(url)
  }
  return Object.freeze(
    primary.kind === 'postgres'
      ? {
          ...primary,
          poolMax,
          pooler,
          ...(prepared !== 'auto' && { namedStatements: prepared === 'on' }),
          ...(readUrl && { readUrl }),
        }
      : primary,
  )
}

/** The three AUTH_ settings together, or none of them. */
function auth({
  authJwksUrl: jwksUrl,
  authIssuer: issuer,
  authAudience: audience,
  authJwksCooldownMs: jwksCooldownMs,
}: Values) {
  if (jwksUrl && issuer && audience) {
    return Object.freeze({ jwksUrl, issuer, audience, jwksCooldownMs })
  }
  if (jwksUrl || issuer || audience) {
    throw new ConfigError(
      'AUTH_JWKS_URL, AUTH_ISSUER and AUTH_AUDIENCE go together: set all three, or none (no authentication)',
    )
  }
  return undefined
}

/** RATE_LIMIT, with REDIS_URL for its counters (REDIS_URL alone has nothing to share). */
function rateLimit({ rateLimit: limit, redisUrl }: Values) {
  if (limit === undefined) {
    if (redisUrl !== undefined)
      throw new ConfigError('REDIS_URL holds the RATE_LIMIT counters: set RATE_LIMIT too')
    return undefined
  }
  return Object.freeze({ ...limit, redisUrl })
}

/**
 * Tracing is on when an OTLP endpoint is given (for all signals or for traces alone),
 * unless the SDK or the trace exporter is switched off by its own standard variables.
 */
function tracing({ otlpEndpoint }: Values, env: Env): boolean {
  const endpoint = otlpEndpoint ?? env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
  return (
    Boolean(endpoint) && env.OTEL_SDK_DISABLED !== 'true' && env.OTEL_TRACES_EXPORTER !== 'none'
  )
}

/** One bulkhead per kind of expensive work, sharing the queue settings. */
function workLimits(values: Values) {
  const bulkhead = (concurrency: number): AdmissionLimits =>
    Object.freeze({
      concurrency,
      queueLength: values.queueLength,
      queueTimeoutMs: values.queueTimeout,
    })
  return Object.freeze({
    searches: bulkhead(values.searchConcurrency),
    todoLists: bulkhead(values.todoListConcurrency),
    hashing: bulkhead(values.hashConcurrency),
  })
}

export const COMPOSED = {
  database: composed(
    [
      'database',
      'databasePassword',
      'dbPoolMax',
      'dbPooler',
      'dbPreparedStatements',
      'databaseReadUrl',
    ],
    database,
  ),
  /** Node refuses a headers timeout longer than the request timeout. */
  headersTimeoutMs: composed(['headersTimeoutMs'], (values) =>
    Math.min(values.headersTimeoutMs, values.requestTimeoutMs),
  ),
  /** Bearer tokens required on /api/v1; undefined: no authentication (the contract's default). */
  auth: composed(['authJwksUrl', 'authIssuer', 'authAudience', 'authJwksCooldownMs'], auth),
  /** Requests per client on /api/v1; undefined: no limit (the contract's default). */
  rateLimit: composed(['rateLimit', 'redisUrl'], rateLimit),
  /** OpenTelemetry traces exported over OTLP, configured by the standard OTEL_* variables. */
  tracing: composed(['otlpEndpoint'], tracing),
  /** How much of each kind of expensive work one instance takes on (decisions §9). */
  workLimits: composed(
    ['searchConcurrency', 'todoListConcurrency', 'hashConcurrency', 'queueLength', 'queueTimeout'],
    workLimits,
  ),
}

/** OpenID Connect bearer tokens: all three settings, or authentication is off. */
export type AuthConfig = NonNullable<ReturnType<typeof auth>>

/** At most `max` requests per client in each window of `windowMs`, counted in Redis or not. */
export type RateLimitConfig = NonNullable<ReturnType<typeof rateLimit>>

/** The bulkheads of the expensive operations; each has its own places and the same queue limits. */
export type WorkLimits = ReturnType<typeof workLimits>
