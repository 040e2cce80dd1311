import { COMPOSED } from './composed.js'
import { describeTable } from './help.js'
import * as parsers from './parsers.js'
import { type ConfigOf, type Env, readTable, type Setting } from './setting-table.js'

/**
 * Every setting the service reads from the environment, validated once at start: one
 * entry per variable. The table is the single source for parsing, defaults, the Config
 * type and the documentation printed by `--help`; docs/configuration.md lists the same
 * settings, which a test checks against this table. A setting is a field of Config under
 * its key, unless composed.ts folds it, with others, into one field.
 */

export const SETTINGS = {
  host: {
    name: 'HOST',
    default: '0.0.0.0',
    description: 'Address to listen on.',
    parse: parsers.hostName,
  },
  port: {
    name: 'PORT',
    default: '8080',
    description: 'TCP port to listen on (0 picks a free port).',
    parse: parsers.integer(0, 65535),
  },
  database: {
    name: 'DATABASE_URL',
    default: '',
    description: `Unset: embedded SQLite in ${parsers.DEFAULT_SQLITE_FILE}. postgres://user@host:5432/db for PostgreSQL, or sqlite:PATH for another SQLite file.`,
    secret: true,
    parse: parsers.databaseUrl,
  },
  databaseReadUrl: {
    name: 'DATABASE_READ_URL',
    default: '',
    description:
      'Unset: every read from DATABASE_URL. postgres://… of a streaming replica: member search and the todo list read from it (a little behind the primary), falling back to the primary while it fails.',
    secret: true,
    parse: parsers.optional(parsers.replicaUrl),
  },
  databasePassword: {
    name: 'DATABASE_PASSWORD',
    default: '',
    description:
      'Unset: the password of DATABASE_URL, if any. The PostgreSQL password as it is, any characters, for DATABASE_URL (and DATABASE_READ_URL) written without one: no percent-encoding needed.',
    secret: true,
    parse: parsers.optional(parsers.text),
  },
  dbPoolMax: {
    name: 'DB_POOL_MAX',
    default: '10',
    description: 'Most PostgreSQL connections one instance opens.',
    parse: parsers.integer(1, 1000),
  },
  dbPooler: {
    name: 'DB_POOLER',
    default: 'none',
    description:
      "none: PostgreSQL directly, or a pooler in session mode. transaction: a pooler in transaction mode (PgBouncer pool_mode = transaction); each transaction then sets the session settings (statement timeout, the URL's -c options) itself.",
    parse: parsers.poolerMode,
  },
  dbPreparedStatements: {
    name: 'DB_PREPARED_STATEMENTS',
    default: 'auto',
    description:
      'PostgreSQL: on: the hot statements (lookups by id, the todo list) are prepared once per connection and then run by name; off: every statement is parsed and planned each time; auto: on, except with DB_POOLER=transaction (PgBouncer before 1.21 cannot track them: set on for 1.21+ with max_prepared_statements > 0).',
    parse: parsers.preparedStatements,
  },
  databaseTimeoutMs: {
    name: 'DB_TIMEOUT',
    default: '1500',
    description:
      'Milliseconds a database operation may take (connect, wait for a lock, run); past it the request answers 500 e.ex.fw.9002.',
    parse: parsers.integer(100, 600_000),
  },
  logLevel: {
    name: 'LOG_LEVEL',
    default: 'info',
    description: `Log level: ${parsers.LOG_LEVELS.join(', ')}.`,
    parse: parsers.logLevel,
  },
  bodyLimit: {
    name: 'BODY_LIMIT',
    default: '65536',
    description: 'Largest accepted request body in bytes; larger bodies get 413 e.ex.fw.7007.',
    parse: parsers.integer(1, 100 * 1024 * 1024),
  },
  trustProxy: {
    name: 'TRUST_PROXY',
    default: 'false',
    description:
      'Whether X-Forwarded-Proto/-Host/-For are believed: false, true, a hop count, or proxy IPs/CIDRs (comma-separated).',
    parse: parsers.trustProxy,
  },
  pageFormat: {
    name: 'PAGE_FORMAT',
    default: 'standard',
    description:
      'Member search page shape: standard (first/last) or legacy (firstPage/lastPage, Sort without nullHandling).',
    parse: parsers.pageFormat,
  },
  logPretty: {
    name: 'LOG_PRETTY',
    default: 'false',
    description:
      'true: human-readable coloured logs (development); false: one JSON line per event.',
    parse: parsers.boolean,
  },
  logBufferBytes: {
    name: 'LOG_BUFFER',
    default: '4096',
    description:
      'Bytes of JSON log lines gathered before one write to standard output (also written each second, and on every way out but SIGKILL, which loses at most this much); 0: each line written as it comes.',
    parse: parsers.integer(0, 1024 * 1024),
  },
  shutdownTimeoutMs: {
    name: 'SHUTDOWN_TIMEOUT',
    default: '10000',
    description:
      'On SIGTERM/SIGINT, milliseconds to let requests in flight finish before closing anyway (exit 1).',
    parse: parsers.integer(0, 600_000),
  },
  shutdownDrainMs: {
    name: 'SHUTDOWN_DRAIN',
    default: '0',
    description:
      'On SIGTERM/SIGINT, milliseconds to keep serving every request (new connections too) while /health/ready answers 503 and each answer closes its connection, before stopping to accept; behind a load balancer, longer than its health check takes to notice.',
    parse: parsers.integer(0, 600_000),
  },
  requestTimeoutMs: {
    name: 'REQUEST_TIMEOUT',
    default: '30000',
    description:
      'Milliseconds a client may take to send a whole request; a slower one gets 408 and is disconnected.',
    parse: parsers.integer(1000, 3_600_000),
  },
  headersTimeoutMs: {
    name: 'HEADERS_TIMEOUT',
    default: '10000',
    description:
      'Milliseconds a client may take to send the request line and headers (at most REQUEST_TIMEOUT).',
    parse: parsers.integer(100, 3_600_000),
  },
  sendTimeoutMs: {
    name: 'SEND_TIMEOUT',
    default: '30000',
    description:
      'Milliseconds a client may take no byte of an answer before it is disconnected; a client that reads slowly, but reads, is not.',
    parse: parsers.integer(1000, 3_600_000),
  },
  readAheadMax: {
    name: 'READ_AHEAD_MAX',
    default: '1024',
    description:
      'Pipelined requests all connections together may have waiting beyond the first 16 of each (Node reads up to 64 KiB of requests at once, some 2 KB of memory each); a connection that would pass it is closed at once, its waiting requests not run.',
    parse: parsers.integer(0, 1_000_000),
  },
  readyTimeoutMs: {
    name: 'READY_TIMEOUT',
    default: '1000',
    description: 'Milliseconds /health/ready waits for the database before answering 503.',
    parse: parsers.integer(1, 60_000),
  },
  metricsPort: {
    name: 'METRICS_PORT',
    default: '',
    description:
      'Unset: /metrics is served on PORT. A port number: only there (on HOST), e.g. one the load balancer does not expose (0 picks a free port).',
    parse: parsers.optional(parsers.integer(0, 65535)),
  },
  webApp: {
    name: 'WEB_APP',
    default: 'true',
    description:
      'true: serve the web app (built into dist/web by npm run build) at /; false: the API only, / is 404.',
    parse: parsers.boolean,
  },
  corsOrigins: {
    name: 'CORS_ORIGINS',
    default: '',
    description:
      'Browser origins allowed to call the API (comma-separated, e.g. https://app.example.com), or *; empty: CORS off.',
    parse: parsers.corsOrigins,
  },
  authJwksUrl: {
    name: 'AUTH_JWKS_URL',
    default: '',
    description:
      'With AUTH_ISSUER and AUTH_AUDIENCE (all three or none): the JSON Web Key Set of the OpenID Connect provider; /api/v1 then needs Authorization: Bearer <JWT> with the scopes of the operation.',
    secret: true,
    parse: parsers.optional(parsers.httpUrl),
  },
  authIssuer: {
    name: 'AUTH_ISSUER',
    default: '',
    description: 'The issuer (iss) every token must name, e.g. https://login.example.com/.',
    parse: parsers.optional(parsers.text),
  },
  authAudience: {
    name: 'AUTH_AUDIENCE',
    default: '',
    description:
      "The audience (aud) every token must include: this API's identifier at the provider.",
    parse: parsers.optional(parsers.text),
  },
  authJwksCooldownMs: {
    name: 'AUTH_JWKS_COOLDOWN',
    default: '30000',
    description:
      'Least milliseconds from the end of one fetch of the key set to the start of the next, whatever the provider answered; a token naming a key the service lacks (key rotation) refetches no sooner. Bounds what a flood of made-up key ids, or a failing provider, costs the provider.',
    parse: parsers.integer(1000, 3_600_000),
  },
  searchConcurrency: {
    name: 'SEARCH_CONCURRENCY',
    default: '1',
    description:
      'Member searches run at once; more wait in a queue (QUEUE_LENGTH, QUEUE_TIMEOUT), then are answered 503 e.ex.fw.9005 with Retry-After. auto: the CPUs Node may use (os.availableParallelism()) less one, at least 1. 0: no limit.',
    parse: parsers.readConcurrency,
  },
  todoListConcurrency: {
    name: 'TODO_LIST_CONCURRENCY',
    default: '1',
    description:
      'Pages of the todo list read at once, whoever reads it; a new list waits or is refused like a search, one already answering only waits. auto and 0 as for SEARCH_CONCURRENCY.',
    parse: parsers.readConcurrency,
  },
  hashConcurrency: {
    name: 'HASH_CONCURRENCY',
    default: '4',
    description:
      "Password hashes (argon2id: member creation, an Idempotency-Key with a password) handed at once to libuv's thread pool, which computes as many at a time as it has threads (UV_THREADPOOL_SIZE: 2 as npm start and the image run the service), 19 MiB each; the rest wait there, so that a thread starts the next hash at once. More wait or are refused like a search. 0: no limit.",
    parse: parsers.integer(0, 1000),
  },
  queueLength: {
    name: 'QUEUE_LENGTH',
    default: '64',
    description:
      'Requests that may wait for a place of each kind above; one more is answered 503 e.ex.fw.9005 at once.',
    parse: parsers.integer(0, 100_000),
  },
  queueTimeout: {
    name: 'QUEUE_TIMEOUT',
    default: '1000',
    description:
      'Milliseconds a request waits for a place before it is answered 503 e.ex.fw.9005; Retry-After is this, in whole seconds (at least 1).',
    parse: parsers.integer(1, 600_000),
  },
  readTimeoutMs: {
    name: 'READ_TIMEOUT',
    default: '1000',
    description:
      'Milliseconds one statement of a member search or a todo list page may run; a longer one is cancelled (PostgreSQL: its statement timeout; SQLite: its reader thread is stopped) and the request answered 503 e.ex.fw.9005.',
    parse: parsers.integer(100, 600_000),
  },
  rateLimit: {
    name: 'RATE_LIMIT',
    default: '',
    description:
      'Unset: no limit. N/second, N/minute or N/hour: at most N requests to /api/v1 per client (the token subject when authenticated, else the client address as TRUST_PROXY defines it); more get 429 e.ex.fw.6006 with Retry-After.',
    parse: parsers.optional(parsers.rateLimit),
  },
  redisUrl: {
    name: 'REDIS_URL',
    default: '',
    description:
      'redis://host:6379 to share the RATE_LIMIT counters between instances; unset: each instance counts alone. While Redis is unreachable requests are served unlimited (fail open), and /health/ready says so.',
    secret: true,
    parse: parsers.optional(parsers.redisUrl),
  },
  otlpEndpoint: {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    default: '',
    description:
      "Unset: no tracing. The OTLP endpoint (e.g. http://collector:4318) to send OpenTelemetry traces to; the SDK's other standard variables (OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER, OTEL_EXPORTER_OTLP_PROTOCOL, …) apply as documented by OpenTelemetry.",
    secret: true,
    parse: parsers.optional(parsers.httpUrl),
  },
} as const satisfies Record<string, Setting<unknown>>

/** The settings read: each setting under its key, or inside the field composed.ts makes it part of. */
export type Config = ConfigOf<typeof SETTINGS, typeof COMPOSED>

/** Reads and validates every setting; throws a ConfigError whose message names the variable. */
export function loadConfig(env: Env = process.env): Config {
  return readTable(SETTINGS, COMPOSED, env)
}

/** The settings as text for `--help`. */
export function describeSettings(): string {
  return describeTable(SETTINGS)
}

export type { DatabaseConfig, PoolerMode } from '../infra/db/database-config.js'
export type { AuthConfig, RateLimitConfig, WorkLimits } from './composed.js'
export type { LogLevel, PageFormat, TrustProxy } from './parsers.js'
export { allCoresButOne } from './parsers.js'
export { ConfigError } from './setting-table.js'
