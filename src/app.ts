import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import SerializerSelector from '@fastify/fast-json-stringify-compiler'
import Fastify, { type FastifyInstance } from 'fastify'
import type { DestinationStream } from 'pino'
import { domainProblems } from './api/errors/domain-errors.js'
import { healthRoutes } from './api/health/routes.js'
import { serveMetrics } from './api/metrics/metrics.js'
import { RequestMetrics } from './api/metrics/request-metrics.js'
import { serveDocsPage } from './api/openapi/docs-page.js'
import { describeApi, serveOpenApi } from './api/openapi/document.js'
import {
  connectionLines,
  installJsonStages,
  installRootStages,
  pipelineOptions,
} from './api/pipeline.js'
import { LazySchemaCompilation } from './api/startup/lazy-schema-compilation.js'
import { validatorCompiler } from './api/validation/compiler.js'
import { serveWebApp } from './api/web/web-app.js'
import type { Config } from './config/settings.js'
import { type IdempotencyScope, IdempotencyService } from './domain/idempotency/service.js'
import { hashSecret } from './infra/crypto/argon2.js'
import { createDatabase, type ExecutedQuery } from './infra/db/create-database.js'
import { KyselyUnitOfWork, type Transactional } from './infra/db/unit-of-work.js'
import { KyselyIdempotencyRepository } from './infra/idempotency/idempotency-repository.js'
import { stdoutDestination } from './infra/logging/stdout-destination.js'
import { connectRedis } from './infra/redis/connect-redis.js'
import { SHUTDOWN_EXPORT_MS, startTracing } from './infra/telemetry/tracing.js'
import { Bulkhead } from './infra/work/bulkhead.js'
import type { Platform } from './platform/resource-module.js'
import { MIGRATIONS, RESOURCES } from './resources/index.js'

const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
).version

/** The built web app: dist/web beside the bundle, and relative to src/ alike. */
const WEB_ROOT = fileURLToPath(new URL('../dist/web/', import.meta.url))

const PURGE_INTERVAL_MS = 60 * 60 * 1000
/** Longest a request waits for the rate limit's Redis before it is served without it. */
const REDIS_TIMEOUT_MS = 250

/** Expired Idempotency-Keys are deleted once the server listens, then hourly. */
function purgeExpiredKeysRegularly(app: FastifyInstance, service: IdempotencyService): void {
  const purge = () => {
    service
      .purgeExpired()
      .catch((error: unknown) => app.log.warn({ err: error }, 'could not purge idempotency keys'))
  }
  const timer = setInterval(purge, PURGE_INTERVAL_MS).unref()
  app.addHook('onListen', (done) => {
    purge()
    done()
  })
  app.addHook('onClose', (_instance, done) => {
    clearInterval(timer)
    done()
  })
}

/**
 * The long reads' connections: one for each search and each todo list page that may run
 * at once, so an admitted read never waits for one; without a limit on either, as many
 * as reads at once.
 */
function longReadConnections({ workLimits }: Config): number {
  const { searches, todoLists } = workLimits
  if (searches.concurrency === 0 || todoLists.concurrency === 0) return 0
  return searches.concurrency + todoLists.concurrency
}

export interface BuildOptions {
  /** Where log lines go (standard output when absent). */
  readonly logStream?: DestinationStream
}

/** Where the JSON lines go: the caller's stream, else standard output (infra/logging). */
function logDestination(config: Config, options: BuildOptions) {
  if (config.logPretty) return undefined
  if (options.logStream) return { stream: options.logStream, linesDropped: () => 0 }
  return stdoutDestination(config.logBufferBytes)
}

/**
 * The one application factory, used by the server and by every test: configuration
 * in, a ready Fastify instance out (database opened and migrated, routes registered).
 * Closing the instance closes the database.
 */
export async function buildApp(
  config: Config,
  options: BuildOptions = {},
): Promise<FastifyInstance> {
  const tracing = config.tracing ? await startTracing() : undefined
  const compilation = new LazySchemaCompilation()
  const fastJsonStringify = SerializerSelector()
  const lines = connectionLines(config)
  const requestMetrics = new RequestMetrics()
  const destination = logDestination(config, options)
  const app = Fastify({
    ...pipelineOptions(config, { lines, metrics: requestMetrics }),
    logger: destination
      ? { level: config.logLevel, stream: destination.stream }
      : { level: config.logLevel, transport: { target: 'pino-pretty' } },
    schemaController: {
      compilersFactory: {
        buildSerializer: (externalSchemas, options) =>
          compilation.defer(fastJsonStringify(externalSchemas, options)),
      },
    },
  })

  app.setValidatorCompiler(compilation.defer(validatorCompiler))
  app.addHook('onListen', (done) => {
    compilation
      .compileRemaining()
      .catch((error: unknown) => app.log.error({ err: error }, 'a route schema does not compile'))
    done()
  })
  app.addHook('onClose', (_instance, done) => {
    compilation.stop()
    done()
  })
  // The pipeline's stages are listed, in order, in api/pipeline.ts.
  await installRootStages(app, config, { lines, domainProblem: domainProblems(RESOURCES) })
  await describeApi(app, {
    version: VERSION,
    authenticated: config.auth !== undefined,
    rateLimited: config.rateLimit !== undefined,
    resources: RESOURCES.map(({ tag, scopes, schemas }) => ({
      tag,
      scopes,
      schemas: schemas(config),
    })),
  })

  // decisions §9: each kind of expensive work within its own limits.
  const bulkheads = {
    searches: new Bulkhead(config.workLimits.searches),
    todoLists: new Bulkhead(config.workLimits.todoLists),
    hashing: new Bulkhead(config.workLimits.hashing),
  }
  const readsCancelled = { count: 0 }
  const database = await createDatabase(config.database, {
    migrations: MIGRATIONS,
    timeoutMs: config.databaseTimeoutMs,
    reads: {
      connections: longReadConnections(config),
      timeoutMs: config.readTimeoutMs,
    },
    onReadCancelled: () => {
      readsCancelled.count += 1
    },
    traced: config.tracing,
    onConnectionError: (error) => app.log.warn({ err: error }, 'database connection failed'),
    onReplicaFallback: (error) =>
      app.log.warn({ err: error }, 'read replica failed a read: the primary answers reads for now'),
    ...(config.logLevel === 'trace' && {
      // Parameters stay out of the log: they carry password hashes and personal data.
      onQuery: ({ sql, durationMs }: ExecutedQuery) => app.log.trace({ sql, durationMs }, 'query'),
    }),
  })
  app.addHook('onClose', () => database.close())
  if (database.migrated.newer.length > 0) {
    app.log.warn(
      { migrations: database.migrated.newer },
      'the database has migrations of a newer release: serving on its schema, as a rolling upgrade allows (docs/operations/lifecycle.md#upgrades)',
    )
  }
  const rateLimitStore = config.rateLimit?.redisUrl
    ? await connectRedis(config.rateLimit.redisUrl, REDIS_TIMEOUT_MS, {
        onUp: () => app.log.info('rate limit counters: Redis connected'),
        onDown: (error) =>
          app.log.warn(
            { err: error },
            'rate limit counters: Redis unreachable, requests are served without a shared limit',
          ),
      })
    : undefined
  if (rateLimitStore) app.addHook('onClose', () => rateLimitStore.close())
  serveMetrics(app, {
    requestMetrics,
    poolStats: database.poolStats,
    bulkheads,
    readsCancelled: () => readsCancelled.count,
    logLinesDropped: destination ? destination.linesDropped : () => 0,
    rateLimitStoreUp: rateLimitStore?.isUp,
    connections: lines,
    port: config.metricsPort,
    host: config.host,
  })

  const idempotencyKeys = new KyselyIdempotencyRepository(database.db)
  const idempotency = new IdempotencyService({
    repository: idempotencyKeys,
    now: () => new Date(),
    slowHash: hashSecret,
    hashing: bulkheads.hashing,
  })
  purgeExpiredKeysRegularly(app, idempotency)

  await app.register(
    async (api) => {
      await installJsonStages(api, {
        idempotency,
        scopes: new Set(RESOURCES.flatMap(({ scopes }) => Object.keys(scopes))),
        auth: config.auth,
        rateLimit: config.rateLimit,
        rateLimitStore,
      })
      const platform: Platform = {
        config,
        database,
        work: bulkheads,
        now: () => new Date(),
        unitOfWork: <Scope extends object>(repositories: Transactional<Scope>) =>
          new KyselyUnitOfWork(database.db, {
            ...repositories,
            idempotency: idempotencyKeys,
          } as Transactional<Scope & IdempotencyScope>),
      }
      for (const resource of RESOURCES) await resource.install(api, platform)
      serveOpenApi(api)
    },
    { prefix: '/api/v1' },
  )
  await app.register(async (health) => {
    await installJsonStages(health)
    await health.register(healthRoutes, {
      ping: database.ping,
      degradable: {
        ...(database.pingReplica && { replica: database.pingReplica }),
        ...(rateLimitStore && { rateLimit: rateLimitStore.ping }),
      },
      readyTimeoutMs: config.readyTimeoutMs,
    })
  })
  await serveDocsPage(app)
  if (config.webApp) await serveWebApp(app, WEB_ROOT)
  if (tracing) {
    app.addHook('onClose', async () => {
      if (await tracing.shutdown()) return
      app.log.warn(
        { timeoutMs: SHUTDOWN_EXPORT_MS },
        'trace collector did not take the last spans in time: they are dropped',
      )
    })
  }
  await app.ready()
  return app
}
