import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { describe, expect, it } from 'vitest'
import { allCoresButOne, ConfigError, loadConfig, SETTINGS } from '../../src/config/settings.js'

/** What SEARCH_CONCURRENCY=auto and TODO_LIST_CONCURRENCY=auto give on this machine. */
const ALL_CORES_BUT_ONE = Math.max(1, availableParallelism() - 1)

describe('configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      host: '0.0.0.0',
      port: 8080,
      database: { kind: 'sqlite', file: './data/api.sqlite' },
      logLevel: 'info',
      bodyLimit: 65536,
      trustProxy: false,
      pageFormat: 'standard',
      logPretty: false,
      logBufferBytes: 4096,
      shutdownTimeoutMs: 10_000,
      shutdownDrainMs: 0,
      readyTimeoutMs: 1000,
      databaseTimeoutMs: 1500,
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      sendTimeoutMs: 30_000,
      readAheadMax: 1024,
      corsOrigins: [],
      webApp: true,
      auth: undefined,
      rateLimit: undefined,
      tracing: false,
      workLimits: {
        searches: { concurrency: 1, queueLength: 64, queueTimeoutMs: 1000 },
        todoLists: { concurrency: 1, queueLength: 64, queueTimeoutMs: 1000 },
        hashing: { concurrency: 4, queueLength: 64, queueTimeoutMs: 1000 },
      },
      readTimeoutMs: 1000,
    })
  })

  it.each([
    [1, 1],
    [2, 1],
    [8, 7],
  ])(
    'leaves the event loop a core: on %i cores, auto runs %i long reads at once',
    (cores, reads) => {
      expect(allCoresButOne(cores)).toBe(reads)
    },
  )

  it('reads auto for each long-read limit on its own', () => {
    const { workLimits } = loadConfig({ SEARCH_CONCURRENCY: 'auto', TODO_LIST_CONCURRENCY: '5' })
    expect(workLimits.searches.concurrency).toBe(ALL_CORES_BUT_ONE)
    expect(workLimits.todoLists.concurrency).toBe(5)
  })

  it('reads every variable', () => {
    expect(
      loadConfig({
        HOST: '127.0.0.1',
        PORT: '9000',
        DATABASE_URL: 'postgres://u@db:5432/app',
        DATABASE_READ_URL: 'postgres://u@replica:5432/app',
        DB_POOL_MAX: '4',
        DB_POOLER: 'transaction',
        LOG_LEVEL: 'warn',
        BODY_LIMIT: '1024',
        TRUST_PROXY: '10.0.0.0/8, 192.168.1.1',
        PAGE_FORMAT: 'legacy',
        LOG_PRETTY: 'true',
        LOG_BUFFER: '0',
        SHUTDOWN_TIMEOUT: '2500',
        SHUTDOWN_DRAIN: '6000',
        READY_TIMEOUT: '300',
        DB_TIMEOUT: '800',
        REQUEST_TIMEOUT: '20000',
        HEADERS_TIMEOUT: '5000',
        SEND_TIMEOUT: '4000',
        READ_AHEAD_MAX: '64',
        CORS_ORIGINS: 'https://app.example.com, http://localhost:5173',
        WEB_APP: 'false',
        AUTH_JWKS_URL: 'https://login.example.com/jwks.json',
        AUTH_ISSUER: 'https://login.example.com/',
        AUTH_AUDIENCE: 'todo-member-api',
        AUTH_JWKS_COOLDOWN: '5000',
        RATE_LIMIT: '600/minute',
        REDIS_URL: 'redis://cache:6379',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        SEARCH_CONCURRENCY: '3',
        TODO_LIST_CONCURRENCY: '0',
        HASH_CONCURRENCY: '1',
        QUEUE_LENGTH: '10',
        QUEUE_TIMEOUT: '250',
        READ_TIMEOUT: '700',
      }),
    ).toEqual({
      host: '127.0.0.1',
      port: 9000,
      database: {
        kind: 'postgres',
        url: 'postgres://u@db:5432/app',
        poolMax: 4,
        pooler: 'transaction',
        readUrl: 'postgres://u@replica:5432/app',
      },
      logLevel: 'warn',
      bodyLimit: 1024,
      trustProxy: ['10.0.0.0/8', '192.168.1.1'],
      pageFormat: 'legacy',
      logPretty: true,
      logBufferBytes: 0,
      shutdownTimeoutMs: 2500,
      shutdownDrainMs: 6000,
      readyTimeoutMs: 300,
      databaseTimeoutMs: 800,
      requestTimeoutMs: 20_000,
      headersTimeoutMs: 5000,
      sendTimeoutMs: 4000,
      readAheadMax: 64,
      corsOrigins: ['https://app.example.com', 'http://localhost:5173'],
      webApp: false,
      auth: {
        jwksUrl: 'https://login.example.com/jwks.json',
        issuer: 'https://login.example.com/',
        audience: 'todo-member-api',
        jwksCooldownMs: 5000,
      },
      rateLimit: { max: 600, windowMs: 60_000, redisUrl: 'redis://cache:6379' },
      tracing: true,
      workLimits: {
        searches: { concurrency: 3, queueLength: 10, queueTimeoutMs: 250 },
        todoLists: { concurrency: 0, queueLength: 10, queueTimeoutMs: 250 },
        hashing: { concurrency: 1, queueLength: 10, queueTimeoutMs: 250 },
      },
      readTimeoutMs: 700,
    })
    expect(loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.db' }).database).toEqual({
      kind: 'sqlite',
      file: '/tmp/x.db',
    })
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true)
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2)
    // Node refuses a headers timeout beyond the request timeout.
    expect(loadConfig({ REQUEST_TIMEOUT: '2000', HEADERS_TIMEOUT: '9000' }).headersTimeoutMs).toBe(
      2000,
    )
  })

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'sqlite:'],
    ['DB_POOL_MAX', '0'],
    ['DB_POOLER', 'session'],
    ['AUTH_JWKS_URL', 'ftp://login.example.com/keys'],
    ['AUTH_JWKS_COOLDOWN', '10'],
    ['RATE_LIMIT', '600'],
    ['RATE_LIMIT', '0/minute'],
    ['RATE_LIMIT', '10/day'],
    ['REDIS_URL', 'http://cache:6379'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
    ['DATABASE_READ_URL', 'mysql://replica'],
    ['LOG_LEVEL', 'loud'],
    ['BODY_LIMIT', '1.5'],
    ['TRUST_PROXY', 'yes'],
    ['TRUST_PROXY', '10.0.0.0/99'],
    ['HOST', ''],
    ['PAGE_FORMAT', 'old'],
    ['LOG_PRETTY', 'yes'],
    ['LOG_BUFFER', '2097152'],
    ['SHUTDOWN_TIMEOUT', '-5'],
    ['SHUTDOWN_DRAIN', '1.5'],
    ['READY_TIMEOUT', '0'],
    ['SEARCH_CONCURRENCY', '-1'],
    ['SEARCH_CONCURRENCY', 'automatic'],
    ['TODO_LIST_CONCURRENCY', 'all'],
    ['HASH_CONCURRENCY', 'two'],
    ['QUEUE_LENGTH', '1e3'],
    ['QUEUE_TIMEOUT', '0'],
    ['READ_TIMEOUT', '50'],
    ['DB_TIMEOUT', '50'],
    ['REQUEST_TIMEOUT', 'soon'],
    ['HEADERS_TIMEOUT', '0'],
    ['SEND_TIMEOUT', '999'],
    ['SEND_TIMEOUT', 'never'],
    ['READ_AHEAD_MAX', '-1'],
    ['CORS_ORIGINS', 'https://app.example.com/path'],
    ['CORS_ORIGINS', 'not a url'],
  ])('rejects %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError)
    // A value that may hold a secret is not shown (secrets.test.ts); any other is.
    const secret = Object.values(SETTINGS).some(
      (setting) => setting.name === name && 'secret' in setting,
    )
    expect(() => loadConfig({ [name]: value })).toThrow(
      secret
        ? `Invalid setting ${name} (its value is not shown: it may hold a secret)`
        : `Invalid setting ${name}=${JSON.stringify(value)}`,
    )
  })

  it('takes the three AUTH_ settings together or not at all', () => {
    expect(loadConfig({}).auth).toBeUndefined()
    for (const partial of [
      { AUTH_ISSUER: 'https://login.example.com/' },
      { AUTH_JWKS_URL: 'https://login.example.com/jwks.json', AUTH_AUDIENCE: 'api' },
    ]) {
      expect(() => loadConfig(partial)).toThrow(
        'AUTH_JWKS_URL, AUTH_ISSUER and AUTH_AUDIENCE go together: set all three, or none (no authentication)',
      )
    }
  })

  it('reads RATE_LIMIT per second, minute or hour, and REDIS_URL only with it', () => {
    expect(loadConfig({}).rateLimit).toBeUndefined()
    expect(loadConfig({ RATE_LIMIT: '20/second' }).rateLimit).toEqual({
      max: 20,
      windowMs: 1000,
      redisUrl: undefined,
    })
    expect(loadConfig({ RATE_LIMIT: '1000/hour' }).rateLimit?.windowMs).toBe(3_600_000)
    expect(() => loadConfig({ REDIS_URL: 'redis://cache:6379' })).toThrow(
      'REDIS_URL holds the RATE_LIMIT counters: set RATE_LIMIT too',
    )
  })

  it('traces when an OTLP endpoint is set, unless the SDK or the trace exporter is off', () => {
    expect(loadConfig({}).tracing).toBe(false)
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }
    expect(loadConfig(endpoint).tracing).toBe(true)
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }).tracing,
    ).toBe(true)
    expect(loadConfig({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).tracing).toBe(false)
    expect(loadConfig({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).tracing).toBe(false)
  })

  it('refuses a replica without PostgreSQL, and startup options a transaction pooler cannot take', () => {
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://u@replica/app' })).toThrow(
      'DATABASE_READ_URL needs a PostgreSQL DATABASE_URL (a replica of it)',
    )
    expect(() => loadConfig({ DB_POOLER: 'transaction' })).toThrow(
      'DB_POOLER=transaction needs a PostgreSQL DATABASE_URL',
    )
    const withOptions = (options: string) => ({
      DATABASE_URL: `postgres://u@db/app?options=${encodeURIComponent(options)}`,
      DB_POOLER: 'transaction',
    })
    expect(loadConfig(withOptions('-c search_path=app --lock-timeout=5s')).database).toMatchObject({
      pooler: 'transaction',
    })
    expect(() => loadConfig(withOptions('-B 100'))).toThrow(
      'Invalid database URL for DB_POOLER=transaction: options must be -c name=value settings; cannot use "-B"',
    )
  })

  it('reads DB_PREPARED_STATEMENTS: auto leaves the choice to the pooler mode, on and off decide', () => {
    const postgres = { DATABASE_URL: 'postgres://u@db/app' }
    expect(loadConfig(postgres).database).not.toHaveProperty('namedStatements')
    expect(loadConfig({ ...postgres, DB_PREPARED_STATEMENTS: 'on' }).database).toMatchObject({
      namedStatements: true,
    })
    expect(loadConfig({ ...postgres, DB_PREPARED_STATEMENTS: 'off' }).database).toMatchObject({
      namedStatements: false,
    })
    expect(() => loadConfig({ ...postgres, DB_PREPARED_STATEMENTS: 'yes' })).toThrow(
      'Invalid setting DB_PREPARED_STATEMENTS="yes": must be auto, on or off',
    )
  })

  it('documents every setting, with its default, in docs/configuration.md', () => {
    const page = readFileSync('docs/configuration.md', 'utf8')
    for (const setting of Object.values(SETTINGS)) {
      const shownDefault = setting.default === '' ? '(unset|empty)' : `\`${setting.default}\``
      expect(page).toMatch(new RegExp(`^\\| \`${setting.name}\` +\\| ${shownDefault} +\\|`, 'm'))
    }
  })

  it('stops the server at start with one clear line when a setting is bad', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { ...process.env, PORT: 'eighty' },
      encoding: 'utf8',
      timeout: 15_000,
    })
    expect(run.status).toBe(1)
    expect(run.stderr.trim()).toBe(
      'Invalid setting PORT="eighty": must be a whole number from 0 to 65535',
    )
  })

  it('prints every setting with its default for --help', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/server.ts', '--help'], {
      encoding: 'utf8',
      timeout: 15_000,
    })
    expect(run.status).toBe(0)
    for (const name of [
      'HOST',
      'PORT',
      'DATABASE_URL',
      'DB_POOL_MAX',
      'DB_POOLER',
      'DATABASE_READ_URL',
      'AUTH_JWKS_URL',
      'AUTH_ISSUER',
      'AUTH_AUDIENCE',
      'RATE_LIMIT',
      'REDIS_URL',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'LOG_LEVEL',
      'BODY_LIMIT',
      'TRUST_PROXY',
      'PAGE_FORMAT',
      'LOG_PRETTY',
      'SHUTDOWN_TIMEOUT',
      'SHUTDOWN_DRAIN',
      'READY_TIMEOUT',
      'DB_TIMEOUT',
      'REQUEST_TIMEOUT',
      'HEADERS_TIMEOUT',
      'SEND_TIMEOUT',
      'CORS_ORIGINS',
    ]) {
      expect(run.stdout).toMatch(new RegExp(`^  ${name} `, 'm'))
    }
    expect(run.stdout).toMatch(/PORT\s+8080/)
  })
})
