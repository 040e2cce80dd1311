import Fastify, { type FastifyInstance } from 'fastify'
import type { DestinationStream } from 'pino'
import { v7 as uuidv7 } from 'uuid'
import { errorHandlingOptions, handleErrors } from './api/error-handler.js'
import { answerUnmatchedRequests } from './api/http/allowed-methods.js'
import { applyHttpConventions, trackIdOf } from './api/http/conventions.js'
import { acceptJsonBodies } from './api/http/request-body.js'
import { RequestLog } from './api/http/request-log.js'
import { memberRoutes } from './api/member/routes.js'
import { todoRoutes } from './api/todo/routes.js'
import { validatorCompiler } from './api/validation/compiler.js'
import type { Config, TrustProxy } from './config.js'
import { newMemberId } from './domain/member/member-id.js'
import { hashPassword } from './domain/member/password.js'
import { MemberService } from './domain/member/service.js'
import { TodoService } from './domain/todo/service.js'
import { createDatabase, type ExecutedQuery } from './infra/db/create-database.js'
import { KyselyMemberRepository } from './infra/member/member-repository.js'
import { KyselyTodoRepository } from './infra/todo/todo-repository.js'

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

export interface BuildOptions {
  /** Where log lines go (standard output when absent). */
  readonly logStream?: DestinationStream
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
  const app = Fastify({
    logger: { level: config.logLevel, ...(options.logStream && { stream: options.logStream }) },
    genReqId: trackIdOf,
    logController: new RequestLog(),
    bodyLimit: config.bodyLimit,
    trustProxy: trustProxyOption(config.trustProxy),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    ...errorHandlingOptions,
  })

  app.setValidatorCompiler(validatorCompiler)
  handleErrors(app)
  acceptJsonBodies(app)
  answerUnmatchedRequests(app, MAX_PARAM_LENGTH)
  applyHttpConventions(app)

  const database = await createDatabase(config.database, {
    onIdleError: (error) => app.log.warn({ err: error }, 'idle database connection failed'),
    ...(config.logLevel === 'trace' && {
      // Parameters stay out of the log: they carry password hashes and personal data.
      onQuery: ({ sql, durationMs }: ExecutedQuery) => app.log.trace({ sql, durationMs }, 'query'),
    }),
  })
  app.addHook('onClose', () => database.close())

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
  await app.register(todoRoutes, { prefix: '/api/v1', service: todoService })
  await app.register(memberRoutes, {
    prefix: '/api/v1',
    service: memberService,
    pageFormat: config.pageFormat,
  })
  await app.ready()
  return app
}
