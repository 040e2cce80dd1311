import { isIP } from 'node:net'
import { availableParallelism } from 'node:os'
import type { AdmissionLimits } from '../domain/common/admission.js'
import type { DatabaseConfig, PoolerMode } from '../infra/db/database-config.js'
import { parseServerOptions } from '../infra/db/postgres/session-settings.js'

/**
 * Every setting the service reads from the environment, validated once at start.
 * The table below is the single source for parsing, defaults and the documentation
 * printed by `--help`; docs/configuration.md lists the same settings, which a test
 * checks against this table.
 */

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'

export type { DatabaseConfig, PoolerMode } from '../infra/db/database-config.js'

/** OpenID Connect bearer tokens: all three settings, or authentication is off. */
export interface AuthConfig {
  readonly jwksUrl: string
  readonly issuer: string
  readonly audience: string
  /** Least milliseconds from the end of one fetch of the key set to the start of the next. */
  readonly jwksCooldownMs: number
}

/** At most `max` requests per client in each window of `windowMs`. */
export interface RateLimitConfig {
  readonly max: number
  readonly windowMs: number
  /** Counters shared by every instance in this Redis; undefined: each instance counts alone. */
  readonly redisUrl: string | undefined
}

/** Field names of a search page: current (`first`/`last`) or the older releases' (`firstPage`/`lastPage`). */
export type PageFormat = 'standard' | 'legacy'

/** Fastify's `trustProxy`: off, on for every hop, a hop count, or a list of proxy addresses. */
export type TrustProxy = boolean | number | readonly string[]

export interface Config {
  readonly host: string
  readonly port: number
  readonly database: DatabaseConfig
  readonly logLevel: LogLevel
  readonly bodyLimit: number
  readonly trustProxy: TrustProxy
  readonly pageFormat: PageFormat
  readonly logPretty: boolean
  /** Bytes of log lines gathered before a write; 0: each line written at once. */
  readonly logBufferBytes: number
  readonly shutdownTimeoutMs: number
  /** On SIGTERM/SIGINT, how long to keep serving, not ready, before stopping to accept. */
  readonly shutdownDrainMs: number
  readonly readyTimeoutMs: number
  /** Longest a database operation may take (connecting, waiting for a lock, a statement). */
  readonly databaseTimeoutMs: number
  /** Longest a client may take to send a whole request, and its headers. */
  readonly requestTimeoutMs: number
  readonly headersTimeoutMs: number
  /** Longest a client may take no byte of an answer before it is disconnected. */
  readonly sendTimeoutMs: number
  /** Requests read ahead of their turn beyond each connection's first 16, all connections together. */
  readonly readAheadMax: number
  /** Origins allowed to call the API from a browser; empty: CORS off. */
  readonly corsOrigins: readonly string[]
  /** Serve the web app (dist/web, built by `npm run build`) at `/`. */
  readonly webApp: boolean
  /** A port of its own for /metrics (on HOST); undefined: /metrics is served on PORT. */
  readonly metricsPort: number | undefined
  /** Bearer tokens required on /api/v1; undefined: no authentication (the contract's default). */
  readonly auth: AuthConfig | undefined
  /** Requests per client on /api/v1; undefined: no limit (the contract's default). */
  readonly rateLimit: RateLimitConfig | undefined
  /** OpenTelemetry traces exported over OTLP, configured by the standard OTEL_* variables. */
  readonly tracing: boolean
  /** How much of each kind of expensive work one instance takes on (decisions §9). */
  readonly workLimits: WorkLimits
  /** Longest one statement of a member search or a todo list page may run before it is cancelled. */
  readonly readTimeoutMs: number
}

/** The bulkheads of the expensive operations; each has its own places and the same queue limits. */
export interface WorkLimits {
  readonly searches: AdmissionLimits
  readonly todoLists: AdmissionLimits
  readonly hashing: AdmissionLimits
}

export class ConfigError extends Error {}

interface Setting<T> {
  readonly name: string
  readonly default: string
  readonly description: string
  readonly parse: (raw: string) => T
}

const LOG_LEVELS: readonly LogLevel[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
]
const DEFAULT_SQLITE_FILE = './data/api.sqlite'

function integer(min: number, max: number) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw)) throw new ConfigError(`must be a whole number from ${min} to ${max}`)
    const value = Number(raw)
    if (value < min || value > max) {
      throw new ConfigError(`must be a whole number from ${min} to ${max}`)
    }
    return value
  }
}

/**
 * Long reads at once: a number, or `auto` for the cores Node may use less one (at least
 * one), so that reads never take the core the event loop answers everyone else on. Not
 * the default: on PostgreSQL each place is a connection, which must not grow with the host.
 */
function readConcurrency(raw: string): number {
  return raw === 'auto' ? allCoresButOne(availableParallelism()) : integer(0, 1000)(raw)
}

export function allCoresButOne(cores: number): number {
  return Math.max(1, cores - 1)
}

function postgresUrl(raw: string): string {
  try {
    new URL(raw)
  } catch {
    throw new ConfigError('is not a valid postgres:// URL')
  }
  return raw
}

function databaseUrl(
  raw: string,
): { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string } {
  if (raw === '') return { kind: 'sqlite', file: DEFAULT_SQLITE_FILE }
  if (/^postgres(ql)?:\/\//.test(raw)) return { kind: 'postgres', url: postgresUrl(raw) }
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length)
    if (file === '')
      throw new ConfigError('sqlite: needs a file path, e.g. sqlite:./data/api.sqlite')
    return { kind: 'sqlite', file }
  }
  throw new ConfigError('must start with postgres://, postgresql:// or sqlite:')
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

/** A setting whose empty value means "not set". */
function optional<T>(parse: (raw: string) => T) {
  return (raw: string): T | undefined => (raw === '' ? undefined : parse(raw))
}

function httpUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError('is not a URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ConfigError('must be an http(s) URL')
  return raw
}

/**
 * Tracing is on when an OTLP endpoint is given (for all signals or for traces alone),
 * unless the SDK or the trace exporter is switched off by its own standard variables.
 */
function tracingOn(env: Env): boolean {
  const endpoint = read(SETTINGS.otlpEndpoint, env) ?? env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
  return (
    Boolean(endpoint) && env.OTEL_SDK_DISABLED !== 'true' && env.OTEL_TRACES_EXPORTER !== 'none'
  )
}

/** RATE_LIMIT, with REDIS_URL for its counters (REDIS_URL alone has nothing to share). */
function rateLimitConfig(env: Env): RateLimitConfig | undefined {
  const limit = read(SETTINGS.rateLimit, env)
  const redisUrl = read(SETTINGS.redisUrl, env)
  if (limit === undefined) {
    if (redisUrl !== undefined)
      throw new ConfigError('REDIS_URL holds the RATE_LIMIT counters: set RATE_LIMIT too')
    return undefined
  }
  return Object.freeze({ ...limit, redisUrl })
}

/** The three AUTH_ settings together, or none of them. */
function authConfig(env: Env): AuthConfig | undefined {
  const jwksUrl = read(SETTINGS.authJwksUrl, env)
  const issuer = read(SETTINGS.authIssuer, env)
  const audience = read(SETTINGS.authAudience, env)
  const jwksCooldownMs = read(SETTINGS.authJwksCooldownMs, env)
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

const WINDOWS: Readonly<Record<string, number>> = { second: 1000, minute: 60_000, hour: 3_600_000 }

function rateLimit(raw: string): { max: number; windowMs: number } {
  const [, count, unit] = /^(\d+)\/(second|minute|hour)$/.exec(raw) ?? []
  const max = Number(count)
  if (!unit || !Number.isSafeInteger(max) || max < 1) {
    throw new ConfigError('must be N/second, N/minute or N/hour with N at least 1, e.g. 600/minute')
  }
  return { max, windowMs: WINDOWS[unit] as number }
}

function boolean(raw: string): boolean {
  if (raw !== 'true' && raw !== 'false') throw new ConfigError('must be true or false')
  return raw === 'true'
}

function corsOrigins(raw: string): readonly string[] {
  const origins = raw
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '')
  for (const origin of origins) {
    if (origin === '*') continue
    let parsed: URL
    try {
      parsed = new URL(origin)
    } catch {
      throw new ConfigError(`${origin} is not an origin like https://app.example.com`)
    }
    if (parsed.origin !== origin) {
      throw new ConfigError(`${origin} is not an origin (scheme://host[:port], no path)`)
    }
  }
  return origins
}

function trustProxy(raw: string): TrustProxy {
  if (raw === 'false' || raw === '') return false
  if (raw === 'true') return true
  if (/^\d+$/.test(raw)) return integer(1, 100)(raw)
  const entries = raw.split(',').map((entry) => entry.trim())
  for (const entry of entries) {
    const [address, bits, ...rest] = entry.split('/')
    const family = isIP(address ?? '')
    const maxBits = family === 6 ? 128 : 32
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits)
    if (family === 0 || !bitsOk || rest.length > 0) {
      throw new ConfigError(
        'must be true, false, a hop count, or a comma-separated list of IP addresses or CIDR ranges',
      )
    }
  }
  return entries
}

export const SETTINGS = {
  host: {
    name: 'HOST',
    default: '0.0.0.0',
    description: 'Address to listen on.',
    parse: (raw: string) => {
      if (raw === '' || /\s/.test(raw)) throw new ConfigError('must be a host name or IP address')
      return raw
    },
  },
  port: {
    name: 'PORT',
    default: '8080',
    description: 'TCP port to listen on (0 picks a free port).',
    parse: integer(0, 65535),
  },
  database: {
    name: 'DATABASE_URL',
    default: '',
    description: `Unset: embedded SQLite in ${DEFAULT_SQLITE_FILE}. postgres://user@host:5432/db for PostgreSQL, or sqlite:PATH for another SQLite file.`,
    parse: databaseUrl,
  },
  databaseReadUrl: {
    name: 'DATABASE_READ_URL',
    default: '',
    description:
      'Unset: every read from DATABASE_URL. postgres://… of a streaming replica: member search and the todo list read from it (a little behind the primary), falling back to the primary while it fails.',
    parse: optional((raw: string): string => {
      const replica = databaseUrl(raw)
      if (replica.kind !== 'postgres')
        throw new ConfigError('must start with postgres:// or postgresql://')
      return replica.url
    }),
  },
  dbPoolMax: {
    name: 'DB_POOL_MAX',
    default: '10',
    description: 'Most PostgreSQL connections one instance opens.',
    parse: integer(1, 1000),
  },
  dbPooler: {
    name: 'DB_POOLER',
    default: 'none',
    description:
      "none: PostgreSQL directly, or a pooler in session mode. transaction: a pooler in transaction mode (PgBouncer pool_mode = transaction); each transaction then sets the session settings (statement timeout, the URL's -c options) itself.",
    parse: (raw: string): PoolerMode => {
      if (raw !== 'none' && raw !== 'transaction')
        throw new ConfigError('must be none or transaction')
      return raw
    },
  },
  dbPreparedStatements: {
    name: 'DB_PREPARED_STATEMENTS',
    default: 'auto',
    description:
      'PostgreSQL: on: the hot statements (lookups by id, the todo list) are prepared once per connection and then run by name; off: every statement is parsed and planned each time; auto: on, except with DB_POOLER=transaction (PgBouncer before 1.21 cannot track them: set on for 1.21+ with max_prepared_statements > 0).',
    parse: (raw: string): 'auto' | 'on' | 'off' => {
      if (raw !== 'auto' && raw !== 'on' && raw !== 'off')
        throw new ConfigError('must be auto, on or off')
      return raw
    },
  },
  databaseTimeoutMs: {
    name: 'DB_TIMEOUT',
    default: '1500',
    description:
      'Milliseconds a database operation may take (connect, wait for a lock, run); past it the request answers 500 e.ex.fw.9002.',
    parse: integer(100, 600_000),
  },
  logLevel: {
    name: 'LOG_LEVEL',
    default: 'info',
    description: `Log level: ${LOG_LEVELS.join(', ')}.`,
    parse: (raw: string): LogLevel => {
      const level = LOG_LEVELS.find((candidate) => candidate === raw)
      if (!level) throw new ConfigError(`must be one of ${LOG_LEVELS.join(', ')}`)
      return level
    },
  },
  bodyLimit: {
    name: 'BODY_LIMIT',
    default: '65536',
    description: 'Largest accepted request body in bytes; larger bodies get 413 e.ex.fw.7007.',
    parse: integer(1, 100 * 1024 * 1024),
  },
  trustProxy: {
    name: 'TRUST_PROXY',
    default: 'false',
    description:
      'Whether X-Forwarded-Proto/-Host/-For are believed: false, true, a hop count, or proxy IPs/CIDRs (comma-separated).',
    parse: trustProxy,
  },
  pageFormat: {
    name: 'PAGE_FORMAT',
    default: 'standard',
    description:
      'Member search page shape: standard (first/last) or legacy (firstPage/lastPage, Sort without nullHandling).',
    parse: (raw: string): PageFormat => {
      if (raw !== 'standard' && raw !== 'legacy')
        throw new ConfigError('must be standard or legacy')
      return raw
    },
  },
  logPretty: {
    name: 'LOG_PRETTY',
    default: 'false',
    description:
      'true: human-readable coloured logs (development); false: one JSON line per event.',
    parse: boolean,
  },
  logBufferBytes: {
    name: 'LOG_BUFFER',
    default: '4096',
    description:
      'Bytes of JSON log lines gathered before one write to standard output (also written each second, and on every way out but SIGKILL, which loses at most this much); 0: each line written as it comes.',
    parse: integer(0, 1024 * 1024),
  },
  shutdownTimeoutMs: {
    name: 'SHUTDOWN_TIMEOUT',
    default: '10000',
    description:
      'On SIGTERM/SIGINT, milliseconds to let requests in flight finish before closing anyway (exit 1).',
    parse: integer(0, 600_000),
  },
  shutdownDrainMs: {
    name: 'SHUTDOWN_DRAIN',
    default: '0',
    description:
      'On SIGTERM/SIGINT, milliseconds to keep serving every request (new connections too) while /health/ready answers 503 and each answer closes its connection, before stopping to accept; behind a load balancer, longer than its health check takes to notice.',
    parse: integer(0, 600_000),
  },
  requestTimeoutMs: {
    name: 'REQUEST_TIMEOUT',
    default: '30000',
    description:
      'Milliseconds a client may take to send a whole request; a slower one gets 408 and is disconnected.',
    parse: integer(1000, 3_600_000),
  },
  headersTimeoutMs: {
    name: 'HEADERS_TIMEOUT',
    default: '10000',
    description:
      'Milliseconds a client may take to send the request line and headers (at most REQUEST_TIMEOUT).',
    parse: integer(100, 3_600_000),
  },
  sendTimeoutMs: {
    name: 'SEND_TIMEOUT',
    default: '30000',
    description:
      'Milliseconds a client may take no byte of an answer before it is disconnected; a client that reads slowly, but reads, is not.',
    parse: integer(1000, 3_600_000),
  },
  readAheadMax: {
    name: 'READ_AHEAD_MAX',
    default: '1024',
    description:
      'Pipelined requests all connections together may have waiting beyond the first 16 of each (Node reads up to 64 KiB of requests at once, some 2 KB of memory each); a connection that would pass it is closed at once, its waiting requests not run.',
    parse: integer(0, 1_000_000),
  },
  readyTimeoutMs: {
    name: 'READY_TIMEOUT',
    default: '1000',
    description: 'Milliseconds /health/ready waits for the database before answering 503.',
    parse: integer(1, 60_000),
  },
  metricsPort: {
    name: 'METRICS_PORT',
    default: '',
    description:
      'Unset: /metrics is served on PORT. A port number: only there (on HOST), e.g. one the load balancer does not expose (0 picks a free port).',
    parse: optional(integer(0, 65535)),
  },
  webApp: {
    name: 'WEB_APP',
    default: 'true',
    description:
      'true: serve the web app (built into dist/web by npm run build) at /; false: the API only, / is 404.',
    parse: boolean,
  },
  corsOrigins: {
    name: 'CORS_ORIGINS',
    default: '',
    description:
      'Browser origins allowed to call the API (comma-separated, e.g. https://app.example.com), or *; empty: CORS off.',
    parse: corsOrigins,
  },
  authJwksUrl: {
    name: 'AUTH_JWKS_URL',
    default: '',
    description:
      'With AUTH_ISSUER and AUTH_AUDIENCE (all three or none): the JSON Web Key Set of the OpenID Connect provider; /api/v1 then needs Authorization: Bearer <JWT> with the scopes of the operation.',
    parse: optional(httpUrl),
  },
  authIssuer: {
    name: 'AUTH_ISSUER',
    default: '',
    description: 'The issuer (iss) every token must name, e.g. https://login.example.com/.',
    parse: optional((raw: string) => raw),
  },
  authAudience: {
    name: 'AUTH_AUDIENCE',
    default: '',
    description:
      "The audience (aud) every token must include: this API's identifier at the provider.",
    parse: optional((raw: string) => raw),
  },
  authJwksCooldownMs: {
    name: 'AUTH_JWKS_COOLDOWN',
    default: '30000',
    description:
      'Least milliseconds from the end of one fetch of the key set to the start of the next, whatever the provider answered; a token naming a key the service lacks (key rotation) refetches no sooner. Bounds what a flood of made-up key ids, or a failing provider, costs the provider.',
    parse: integer(1000, 3_600_000),
  },
  searchConcurrency: {
    name: 'SEARCH_CONCURRENCY',
    default: '1',
    description:
      'Member searches run at once; more wait in a queue (QUEUE_LENGTH, QUEUE_TIMEOUT), then are answered 503 e.ex.fw.9005 with Retry-After. auto: the CPUs Node may use (os.availableParallelism()) less one, at least 1. 0: no limit.',
    parse: readConcurrency,
  },
  todoListConcurrency: {
    name: 'TODO_LIST_CONCURRENCY',
    default: '1',
    description:
      'Pages of the todo list read at once, whoever reads it; a new list waits or is refused like a search, one already answering only waits. auto and 0 as for SEARCH_CONCURRENCY.',
    parse: readConcurrency,
  },
  hashConcurrency: {
    name: 'HASH_CONCURRENCY',
    default: '4',
    description:
      "Password hashes (argon2id: member creation, an Idempotency-Key with a password) handed at once to libuv's thread pool, which computes as many at a time as it has threads (UV_THREADPOOL_SIZE: 2 as npm start and the image run the service), 19 MiB each; the rest wait there, so that a thread starts the next hash at once. More wait or are refused like a search. 0: no limit.",
    parse: integer(0, 1000),
  },
  queueLength: {
    name: 'QUEUE_LENGTH',
    default: '64',
    description:
      'Requests that may wait for a place of each kind above; one more is answered 503 e.ex.fw.9005 at once.',
    parse: integer(0, 100_000),
  },
  queueTimeout: {
    name: 'QUEUE_TIMEOUT',
    default: '1000',
    description:
      'Milliseconds a request waits for a place before it is answered 503 e.ex.fw.9005; Retry-After is this, in whole seconds (at least 1).',
    parse: integer(1, 600_000),
  },
  readTimeoutMs: {
    name: 'READ_TIMEOUT',
    default: '1000',
    description:
      'Milliseconds one statement of a member search or a todo list page may run; a longer one is cancelled (PostgreSQL: its statement timeout; SQLite: its reader thread is stopped) and the request answered 503 e.ex.fw.9005.',
    parse: integer(100, 600_000),
  },
  rateLimit: {
    name: 'RATE_LIMIT',
    default: '',
    description:
      'Unset: no limit. N/second, N/minute or N/hour: at most N requests to /api/v1 per client (the token subject when authenticated, else the client address as TRUST_PROXY defines it); more get 429 e.ex.fw.6006 with Retry-After.',
    parse: optional(rateLimit),
  },
  redisUrl: {
    name: 'REDIS_URL',
    default: '',
    description:
      'redis://host:6379 to share the RATE_LIMIT counters between instances; unset: each instance counts alone. While Redis is unreachable requests are served unlimited (fail open), and /health/ready says so.',
    parse: optional((raw: string): string => {
      if (!/^rediss?:\/\//.test(raw)) throw new ConfigError('must start with redis:// or rediss://')
      return raw
    }),
  },
  otlpEndpoint: {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    default: '',
    description:
      "Unset: no tracing. The OTLP endpoint (e.g. http://collector:4318) to send OpenTelemetry traces to; the SDK's other standard variables (OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER, OTEL_EXPORTER_OTLP_PROTOCOL, …) apply as documented by OpenTelemetry.",
    parse: optional(httpUrl),
  },
} as const satisfies Record<string, Setting<unknown>>

type Env = Readonly<Record<string, string | undefined>>

function read<T>(setting: Setting<T>, env: Env): T {
  const raw = env[setting.name] ?? setting.default
  try {
    return setting.parse(raw)
  } catch (error) {
    const reason = error instanceof ConfigError ? error.message : String(error)
    throw new ConfigError(`Invalid setting ${setting.name}=${JSON.stringify(raw)}: ${reason}`)
  }
}

/** Reads and validates every setting; throws a ConfigError whose message names the variable. */
export function loadConfig(env: Env = process.env): Config {
  const database = read(SETTINGS.database, env)
  const poolMax = read(SETTINGS.dbPoolMax, env)
  const pooler = read(SETTINGS.dbPooler, env)
  const prepared = read(SETTINGS.dbPreparedStatements, env)
  const readUrl = read(SETTINGS.databaseReadUrl, env)
  if (readUrl !== undefined && database.kind !== 'postgres') {
    throw new ConfigError('DATABASE_READ_URL needs a PostgreSQL DATABASE_URL (a replica of it)')
  }
  if (pooler === 'transaction' && database.kind !== 'postgres') {
    throw new ConfigError('DB_POOLER=transaction needs a PostgreSQL DATABASE_URL')
  }
  if (database.kind === 'postgres' && pooler === 'transaction') {
    for (const url of [database.url, readUrl]) if (url) checkOptionsForPooler(url)
  }
  const requestTimeoutMs = read(SETTINGS.requestTimeoutMs, env)
  return Object.freeze({
    host: read(SETTINGS.host, env),
    port: read(SETTINGS.port, env),
    database: Object.freeze(
      database.kind === 'postgres'
        ? {
            ...database,
            poolMax,
            pooler,
            ...(prepared !== 'auto' && { namedStatements: prepared === 'on' }),
            ...(readUrl && { readUrl }),
          }
        : database,
    ),
    logLevel: read(SETTINGS.logLevel, env),
    bodyLimit: read(SETTINGS.bodyLimit, env),
    trustProxy: read(SETTINGS.trustProxy, env),
    pageFormat: read(SETTINGS.pageFormat, env),
    logPretty: read(SETTINGS.logPretty, env),
    logBufferBytes: read(SETTINGS.logBufferBytes, env),
    shutdownTimeoutMs: read(SETTINGS.shutdownTimeoutMs, env),
    shutdownDrainMs: read(SETTINGS.shutdownDrainMs, env),
    readyTimeoutMs: read(SETTINGS.readyTimeoutMs, env),
    databaseTimeoutMs: read(SETTINGS.databaseTimeoutMs, env),
    requestTimeoutMs,
    // Node refuses a headers timeout longer than the request timeout.
    headersTimeoutMs: Math.min(read(SETTINGS.headersTimeoutMs, env), requestTimeoutMs),
    sendTimeoutMs: read(SETTINGS.sendTimeoutMs, env),
    readAheadMax: read(SETTINGS.readAheadMax, env),
    corsOrigins: read(SETTINGS.corsOrigins, env),
    webApp: read(SETTINGS.webApp, env),
    metricsPort: read(SETTINGS.metricsPort, env),
    auth: authConfig(env),
    rateLimit: rateLimitConfig(env),
    tracing: tracingOn(env),
    workLimits: workLimits(env),
    readTimeoutMs: read(SETTINGS.readTimeoutMs, env),
  })
}

/** One bulkhead per kind of expensive work, sharing the queue settings. */
function workLimits(env: Env): WorkLimits {
  const queue = {
    queueLength: read(SETTINGS.queueLength, env),
    queueTimeoutMs: read(SETTINGS.queueTimeout, env),
  }
  return Object.freeze({
    searches: Object.freeze({ concurrency: read(SETTINGS.searchConcurrency, env), ...queue }),
    todoLists: Object.freeze({ concurrency: read(SETTINGS.todoListConcurrency, env), ...queue }),
    hashing: Object.freeze({ concurrency: read(SETTINGS.hashConcurrency, env), ...queue }),
  })
}

/** The settings as text for `--help`. */
export function describeSettings(): string {
  const settings = Object.values(SETTINGS)
  const width = Math.max(...settings.map((setting) => setting.name.length))
  const rows = settings.map(
    (setting) =>
      `  ${setting.name.padEnd(width)} ${(setting.default === '' ? '(unset)' : setting.default).padEnd(10)} ${setting.description}`,
  )
  return [
    'Settings (environment variables):',
    `  ${'NAME'.padEnd(width)} ${'DEFAULT'.padEnd(10)} MEANING`,
    ...rows,
  ].join('\n')
}
