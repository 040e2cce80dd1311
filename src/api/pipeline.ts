import type { Server } from 'node:http'
import type { FastifyHttpOptions, FastifyInstance } from 'fastify'
import type { AuthConfig, Config, RateLimitConfig, TrustProxy } from '../config/settings.js'
import type { IdempotencyService } from '../domain/idempotency/service.js'
import { ConnectionLines } from './connection/connection-lines.js'
import { closeConnectionsWhileDraining } from './connection/draining.js'
import { createHttpServer } from './connection/http-server.js'
import type { DomainProblem } from './errors/domain-errors.js'
import { honourIdempotencyKeys } from './idempotency/idempotency-keys.js'
import type { RequestMetrics } from './metrics/request-metrics.js'
import { RequestLog } from './observability/request-log.js'
import { traceRequests } from './observability/tracing.js'
import { trackIdOf } from './observability/track-id.js'
import { setCommonHeaders } from './reply/common-headers.js'
import { errorHandlingOptions, handleErrors } from './reply/send-api-error.js'
import { answerUnmatchedRequests, emptyIdProblem } from './request/allowed-methods.js'
import { applyJsonContext } from './request/json-context.js'
import { ignoreBodies } from './request/request-body.js'
import { checkRequestHead } from './request/request-head.js'
import {
  answersAsteriskForm,
  decodableTarget,
  requestTargetProblem,
} from './request/request-target.js'
import { requireDeclaredScopes } from './route-policy/route-policy.js'
import { requireBearerTokens } from './security/authentication.js'
import { identifyClients } from './security/client-key.js'
import { allowBrowserOrigins } from './security/cors.js'
import { limitRequestRates, type RateLimitStore } from './security/rate-limit.js'

/*
 * The request pipeline, in the order a request meets it. Each stage lives in the file
 * named (paths under src/api/); this file is the one place that puts them in order.
 *
 * Every request
 *  0. tracing        observability/tracing.ts (when OTEL_EXPORTER_OTLP_ENDPOINT is set):
 *                    the request's SERVER span, continuing a W3C traceparent; trace_id on
 *                    its log lines.
 *  1. connection     connection/http-server.ts, connection/connection-line.ts,
 *                    connection/connection-lines.ts: the requests of one connection run
 *                    one at a time and are answered in order; none runs after an answer
 *                    that closes the connection. The next one runs once the socket has
 *                    taken the answer before it, on a later turn of the event loop than
 *                    other connections' requests. A client that takes no byte of an
 *                    answer for SEND_TIMEOUT is disconnected. When the service stops,
 *                    requests waiting in line are not run. Bytes Node cannot parse are
 *                    answered as an ApiError after the requests before them
 *                    (reply/send-api-error.ts, `answerBrokenRequest`). CONNECT, a missing
 *                    Host and an unknown Expect are let in, to be answered below.
 *  2. target         request/request-target.ts: a path that is no UTF-8 text made routable.
 *  3. onRequest      one hook, `everyRequest` below, in this order:
 *                    reply/common-headers.ts: X-Track (chosen in observability/track-id.ts),
 *                    X-Content-Type-Options, the route's Cache-Control: no-store, and
 *                    Connection: close after HTTP/1.0 with Transfer-Encoding.
 *                    connection/draining.ts: while a stop drains, Connection: close.
 *                    request/request-head.ts: Host (400), Expect (417).
 *                    request/request-target.ts: a target of no HTTP form, or `*` with
 *                    a method other than OPTIONS, is 400; `OPTIONS *` is answered 200
 *                    with the server's Allow.
 *                    request/allowed-methods.ts: an empty id is 404.
 *                    Then security/cors.ts: browser preflights, when CORS_ORIGINS is set.
 *                    preParsing, request/allowed-methods.ts: a path no route serves is
 *                    404, a known one with another method 405 with Allow, whatever the
 *                    method token (request lines Node refuses: stage 1).
 * In the JSON contexts (/api/v1, /health)
 *  4. onRequest      request/json-context.ts: the exact JSON Content-Type; no JSON in
 *                    Accept is 406.
 *                    security/authentication.ts (/api/v1, when AUTH_* is set): a bearer
 *                    token with the scope the route declares (401, 403; 503 without
 *                    the keys).
 *                    security/rate-limit.ts (/api/v1, when RATE_LIMIT is set): requests
 *                    per client, the token's subject or the address (429).
 *  5. preParsing     request/request-body.ts, on routes that read a body: a charset or
 *                    Content-Encoding the service does not read is 415, before the
 *                    body is read.
 *  6. parsing        Fastify reads the body: a Content-Type without a parser is 415, more
 *                    than BODY_LIMIT bytes 413 (`pipelineOptions` below), both mapped by
 *                    errors/to-api-error.ts; request/request-body.ts parses the only one
 *                    it reads, application/json, as UTF-8 JSON (400 e.ex.fw.7003).
 *  7. preValidation  request/json-context.ts, on routes that read a body: it is there (400).
 *  8. validation     validation/compiler.ts: unknown fields 7004, types 7005/7006,
 *                    rules 7001/7002.
 *  9. preHandler     idempotency/idempotency-keys.ts: Idempotency-Key admission, on the
 *                    routes whose policy says `idempotent`.
 * 10. handler        a resource's routes (resources/todo/api/routes.ts), calling its services.
 * 11. onSend         idempotency/idempotency-keys.ts, on the same routes: an outcome not
 *                    stored with the resource.
 * 12. completed      observability/request-log.ts, Fastify's LogController, once the
 *                    answer is sent: counted (metrics/request-metrics.ts) and logged, one
 *                    line.
 * Stages 5, 7, 9 and 11 are hooks of the routes that need them (route-policy/route-hooks.ts), so
 * a request for any other route does not run them at all. Fastify calls each hook through
 * its hook runner, a cost every request pays: stage 3 is one hook, and stage 12 is none.
 * A failure at any stage: reply/send-api-error.ts answers it, a domain error made an
 * ApiProblem by errors/domain-errors.ts, and any error mapped to an ApiError by
 * errors/to-api-error.ts, the one mapping.
 *
 * What a route needs of these stages (its bearer scope, Idempotency-Key, the expensive
 * work it does, no-store) it declares itself, in its `config`: route-policy/route-policy.ts.
 */

/**
 * find-my-way's cap exists to bound regex parameters, which we do not use; any id,
 * however long, is looked up and answers the resource's own 404. The URL itself is
 * bounded by Node's header size limit.
 */
const MAX_PARAM_LENGTH = 16 * 1024

/** Fastify's types omit the hop-count form, so a count becomes the equivalent function. */
function trustProxyOption(trust: TrustProxy) {
  if (typeof trust === 'number') return (_address: string, hop: number) => hop < trust
  return typeof trust === 'boolean' ? trust : [...trust]
}

/** During a stop, the longest a client may take no byte of an answer (or less, below). */
const STOP_SEND_TIMEOUT_MS = 1000

/**
 * Stage 1's connections, with their send timeout. During a stop a client taking nothing
 * is let go within one to one and a half seconds (the lines' sweep), sooner with a
 * shorter SEND_TIMEOUT, and within half a short SHUTDOWN_TIMEOUT, so that an answer
 * nobody takes never holds the stop up to its deadline.
 */
export function connectionLines(config: Config): ConnectionLines {
  const stopSendTimeoutMs = Math.min(
    STOP_SEND_TIMEOUT_MS,
    Math.max(1, Math.floor(config.shutdownTimeoutMs / 4)),
  )
  return new ConnectionLines({
    sendTimeoutMs: config.sendTimeoutMs,
    stopSendTimeoutMs,
    readAheadMax: config.readAheadMax,
  })
}

/** The server options behind stages 1, 2 and 12, the request id and the limits. */
export function pipelineOptions(
  config: Config,
  { lines, metrics }: { lines: ConnectionLines; metrics: RequestMetrics },
): FastifyHttpOptions<Server> {
  return {
    serverFactory: (handle, options) => createHttpServer(handle, options, lines),
    rewriteUrl: decodableTarget,
    genReqId: trackIdOf,
    logController: new RequestLog(metrics),
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
    ...errorHandlingOptions,
  }
}

/**
 * Stages 0 and 3 and the error mapping, on the whole server; before any route is
 * registered. Stage 1's lines stop as the server begins to close.
 */
export async function installRootStages(
  app: FastifyInstance,
  config: Config,
  { lines, domainProblem }: { lines: ConnectionLines; domainProblem: DomainProblem },
): Promise<void> {
  app.addHook('preClose', (done) => {
    lines.stop()
    done()
  })
  if (config.tracing) await traceRequests(app)
  identifyClients(app)
  handleErrors(app, domainProblem)
  // The body of a request no route matches is never read, so its 404/405 comes first.
  ignoreBodies(app)
  const closeIfDraining = closeConnectionsWhileDraining(app)
  app.addHook('onRequest', function everyRequest(request, reply, done) {
    setCommonHeaders(request, reply)
    closeIfDraining(reply)
    const problem =
      checkRequestHead(request) ?? requestTargetProblem(request) ?? emptyIdProblem(request)
    if (!problem && answersAsteriskForm(request, reply)) return
    done(problem)
  })
  answerUnmatchedRequests(app, MAX_PARAM_LENGTH)
  await allowBrowserOrigins(app, config.corsOrigins)
}

export interface ApiStageOptions {
  /** The API's context, whose routes declare their scopes; with its Idempotency-Keys. */
  readonly idempotency?: IdempotencyService
  /** The scopes the resources grant, one of which each API route declares. */
  readonly scopes?: ReadonlySet<string>
  readonly auth?: AuthConfig | undefined
  readonly rateLimit?: RateLimitConfig | undefined
  readonly rateLimitStore?: RateLimitStore | undefined
}

/**
 * Stages 4 to 9 in a JSON context; bearer tokens and rate limits when they are on, and
 * Idempotency-Key, where the context has the API's routes.
 */
export async function installJsonStages(
  context: FastifyInstance,
  { idempotency, scopes, auth, rateLimit, rateLimitStore }: ApiStageOptions = {},
): Promise<void> {
  applyJsonContext(context)
  if (scopes) requireDeclaredScopes(context, scopes)
  if (auth) await requireBearerTokens(context, auth)
  if (rateLimit) await limitRequestRates(context, rateLimit, rateLimitStore)
  if (idempotency) honourIdempotencyKeys(context, idempotency)
}
