import { readFileSync } from 'node:fs'
import SerializerSelector from '@fastify/fast-json-stringify-compiler'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { DestinationStream } from 'pino'
import { v7 as uuidv7 } from 'uuid'
import { DeferredCompilation } from './api/common/deferred-compilation.js'
import { errorHandlingOptions, handleErrors } from './api/error-handler.js'
import { healthRoutes } from './api/health/routes.js'
import { answerUnmatchedRequests } from './api/http/allowed-methods.js'
import { applyJsonConventions, applyRootConventions, trackIdOf } from './api/http/conventions.js'
import { allowBrowserOrigins } from './api/http/cors.js'
import { honourIdempotencyKeys } from './api/http/idempotency.js'
import { RequestLog } from './api/http/request-log.js'
import { memberRoutes } from './api/member/routes.js'
import { describeApi, serveDocsPage, serveOpenApi } from './api/openapi.js'
import { serveMetrics } from './api/operations/metrics.js'
import { todoRoutes } from './api/todo/routes.js'
import { validatorCompiler } from './api/validation/compiler.js'
import type { Config, TrustProxy } from './config.js'
import { IdempotencyService } from './domain/idempotency/service.js'
import { newMemberId } from './domain/member/member-id.js'
import { hashPassword } from './domain/member/password.js'
import { MemberService } from './domain/member/service.js'
import { TodoService } from './domain/todo/service.js'
import { createDatabase, type ExecutedQuery } from './infra/db/create-database.js'
import { KyselyIdempotencyRepository } from './infra/idempotency/idempotency-repository.js'
import { KyselyMemberRepository } from './infra/member/member-repository.js'
import { KyselyTodoRepository } from './infra/todo/todo-repository.js'

const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
).version

/** Fastify's types omit the hop-count form, so a count becomes the equivalent function. */
function trustProxyOption(trust: TrustProxy) {
  if (typeof trust === 'number') return (_address: string, hop: number) => hop < trust
  return typeof trust === 'boolean' ? trust : [...trust]
}

/**
 * find-my-way's cap exists to bound regex parameters, which we do not use; any id,
 * however long, is looked up and answers the resource's own 404. The URL itself is
 * bounded by Node's header size limit.
 */
const MAX_PARAM_LENGTH = 16 * 1024

const PURGE_INTERVAL_MS = 60 * 60 * 1000

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

export interface BuildOptions {
  /** Where log lines go (standard output when absent). */
  readonly logStream?: DestinationStream
}

function loggerOptions(config: Config, options: BuildOptions): FastifyServerOptions['logger'] {
  if (config.logPretty) return { level: config.logLevel, transport: { target: 'pino-pretty' } }
  return { level: config.logLevel, ...(options.logStream && { stream: options.logStream }) }
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
  const compilation = new DeferredCompilation()
  const fastJsonStringify = SerializerSelector()
  const app = Fastify({
    logger: loggerOptions(config, options),
    genReqId: trackIdOf,
    logController: new RequestLog(),
    bodyLimit: config.bodyLimit,
    // A client sending slowly (slowloris) cannot hold a connection past these.
    requestTimeout: config.requestTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      // Node checks both only this often (30 s by default).
      connectionsCheckingInterval: Math.min(1000, Math.ceil(config.headersTimeoutMs / 2)),
    },
    trustProxy: trustProxyOption(config.trustProxy),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Requests that arrive while stopping are still served; new connections are refused.
    return503OnClosing: false,
    schemaController: {
      compilersFactory: {
        buildSerializer: (externalSchemas, options) =>
          compilation.defer(fastJsonStringify(externalSchemas, options)),
      },
    },
    ...errorHandlingOptions,
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
  handleErrors(app)
  applyRootConventions(app)
  answerUnmatchedRequests(app, MAX_PARAM_LENGTH)
  await allowBrowserOrigins(app, config.corsOrigins)
  await describeApi(app, VERSION)

  const database = await createDatabase(config.database, {
    timeoutMs: config.databaseTimeoutMs,
    onConnectionError: (error) => app.log.warn({ err: error }, 'database connection failed'),
    ...(config.logLevel === 'trace' && {
      // Parameters stay out of the log: they carry password hashes and personal data.
      onQuery: ({ sql, durationMs }: ExecutedQuery) => app.log.trace({ sql, durationMs }, 'query'),
    }),
  })
  app.addHook('onClose', () => database.close())
  serveMetrics(app, { poolStats: database.poolStats })

  const todoService = new TodoService({
    repository: new KyselyTodoRepository(database.db),
    now: () => new Date(),
    newId: uuidv7,
  })
  const memberService = new MemberService({
    repository: new KyselyMemberRepository(database.db),
    now: () => new Date(),
    newId: newMemberId,
    hashPassword,
  })

  const idempotency = new IdempotencyService({
    repository: new KyselyIdempotencyRepository(database.db),
    now: () => new Date(),
  })
  purgeExpiredKeysRegularly(app, idempotency)

  await app.register(
    async (api) => {
      applyJsonConventions(api)
      honourIdempotencyKeys(api, idempotency)
      await api.register(todoRoutes, { service: todoService })
      await api.register(memberRoutes, { service: memberService, pageFormat: config.pageFormat })
      serveOpenApi(api)
    },
    { prefix: '/api/v1' },
  )
  await app.register(async (health) => {
    applyJsonConventions(health)
    await health.register(healthRoutes, {
      ping: database.ping,
      readyTimeoutMs: config.readyTimeoutMs,
    })
  })
  await serveDocsPage(app)
  await app.ready()
  return app
}
