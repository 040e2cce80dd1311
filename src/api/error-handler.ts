import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
} from 'fastify'
import {
  BusinessRuleError,
  DataAccessError,
  type DomainError,
  OptimisticLockError,
  PreconditionFailedError,
  ResourceNotFoundError,
  ResultLimitExceededError,
  ServiceBusyError,
} from '../domain/common/errors.js'
import {
  IdempotencyKeyInFlightError,
  IdempotencyKeyReusedError,
} from '../domain/idempotency/service.js'
import type { ApiErrorBody } from './errors/api-error.js'
import { ERROR_CATALOGUE, isErrorCode } from './errors/catalogue.js'
import { ApiProblem, PROBLEMS, type Problem } from './errors/problems.js'
import { existingLineOf } from './http/connection-lines.js'
import { JSON_CONTENT_TYPE } from './http/media-types.js'
import { type Locale, type MessageKey, message, resolveLocale } from './messages/index.js'

/** The domain errors the api layer answers; each carries a code of the error catalogue. */
const DOMAIN_ERRORS: ReadonlyArray<abstract new (...args: never[]) => DomainError> = [
  ResourceNotFoundError,
  BusinessRuleError,
  OptimisticLockError,
  PreconditionFailedError,
  DataAccessError,
  ServiceBusyError,
  IdempotencyKeyReusedError,
  IdempotencyKeyInFlightError,
]

/** Fastify's own request errors, by their code. */
const FASTIFY_PROBLEMS: Readonly<Record<string, Problem>> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: PROBLEMS.unsupportedMediaType,
  FST_ERR_CTP_BODY_TOO_LARGE: PROBLEMS.bodyTooLarge,
  FST_ERR_CTP_EMPTY_JSON_BODY: PROBLEMS.malformedBody,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: PROBLEMS.malformedBody,
  FST_ERR_CTP_INVALID_JSON_BODY: PROBLEMS.malformedBody,
}

/** Any other error Fastify raises, by its status; its other client errors concern the body. */
function problemForStatus(status: number): Problem {
  const byStatus = Object.values(PROBLEMS).find(
    (problem) => problem.status === status && status !== 400,
  )
  if (byStatus) return byStatus
  return status >= 400 && status < 500 ? PROBLEMS.malformedBody : PROBLEMS.systemError
}

interface Rendered {
  readonly status: number
  readonly body: ApiErrorBody
  readonly headers: Readonly<Record<string, string>>
}

function render(problem: ApiProblem, locale: Locale): Rendered {
  const details = problem.violations.map((violation) => ({
    code: violation.constraint,
    message: message(locale, violation.constraint, {
      ...violation.attributes,
      0: violation.target,
    }),
    target: violation.target,
  }))
  return {
    status: problem.status,
    headers: problem.headers,
    body: {
      code: problem.code,
      message: message(
        locale,
        problem.code,
        Object.fromEntries(problem.args.map((arg, index) => [index, arg])),
      ),
      ...(problem.target !== undefined && { target: problem.target }),
      ...(details.length > 0 && { details }),
    },
  }
}

/** The headers a domain error's answer carries: when a busy instance may be asked again. */
function domainHeaders(error: DomainError): Record<string, string> {
  return error instanceof ServiceBusyError ? { 'retry-after': String(error.retryAfterSeconds) } : {}
}

/** The catalogue's status for the code; a failed If-Match is HTTP's own 412. */
function renderDomain(error: DomainError, locale: Locale): Rendered {
  const code = isErrorCode(error.code) ? error.code : PROBLEMS.systemError.code
  const status =
    error instanceof PreconditionFailedError
      ? PROBLEMS.preconditionFailed.status
      : ERROR_CATALOGUE[code].status
  const args = Object.fromEntries(error.args.map((arg, index) => [index, arg]))
  return {
    status,
    headers: domainHeaders(error),
    body: { code, message: message(locale, code, args) },
  }
}

/** The only request that can ask for more than a limit is the unpaged member search. */
function resultLimitProblem(error: ResultLimitExceededError): ApiProblem {
  return new ApiProblem(PROBLEMS.parameterValidation, {
    violations: [
      { constraint: 'ResultLimit', target: 'unpaged', attributes: { max: error.limit } },
    ],
  })
}

/** Any thrown value -> status, headers and ApiError body. The only such mapping. */
export function toApiError(error: unknown, locale: Locale): Rendered {
  if (error instanceof ApiProblem) return render(error, locale)
  if (error instanceof ResultLimitExceededError) return render(resultLimitProblem(error), locale)
  if (DOMAIN_ERRORS.some((type) => error instanceof type)) {
    return renderDomain(error as DomainError, locale)
  }
  const fastifyError = error as Partial<FastifyError>
  const known = fastifyError.code ? FASTIFY_PROBLEMS[fastifyError.code] : undefined
  if (known) return render(new ApiProblem(known), locale)
  return render(new ApiProblem(problemForStatus(Number(fastifyError.statusCode ?? 500))), locale)
}

function logFailure(request: FastifyRequest, error: unknown, status: number): void {
  // A busy answer is the service working as designed under load; the metrics count it.
  if (status >= 500 && !(error instanceof ServiceBusyError)) {
    request.log.error({ err: error }, 'request failed')
  } else {
    request.log.debug({ err: error }, 'request rejected')
  }
}

/** What is sent when even rendering the error failed: fixed, so it cannot fail. */
const LAST_RESORT: Rendered = {
  status: 500,
  headers: {},
  body: { code: PROBLEMS.systemError.code, message: message('en', PROBLEMS.systemError.code) },
}

function renderSafely(request: FastifyRequest, error: unknown): Rendered {
  try {
    return toApiError(error, resolveLocale(request.headers['accept-language']))
  } catch (renderError) {
    request.log.error({ err: renderError }, 'could not render an error answer')
    return LAST_RESORT
  }
}

/** Headers a handler sets for its answer, which an error met after them must not carry. */
const SUCCESS_HEADERS = ['etag', 'location'] as const

/** Sends text that is JSON already. */
const asIs = (text: string) => text

/**
 * The body goes out as ready JSON text, and a serializer a route chose for its answer
 * (which failed, or never ran) is replaced: an error met while serializing an answer is
 * still an ApiError with the exact Content-Type.
 */
function sendApiError(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  const { status, body, headers } = renderSafely(request, error)
  logFailure(request, error, status)
  for (const name of SUCCESS_HEADERS) reply.removeHeader(name)
  return reply
    .code(status)
    .headers(headers)
    .header('x-track', request.id)
    .header('content-type', JSON_CONTENT_TYPE)
    .serializer(asIs)
    .send(JSON.stringify(body))
}

/** Answers to requests Node could not parse, by its error code; anything else is 400. */
const BROKEN_REQUESTS: Readonly<Record<string, BrokenRequestAnswer>> = {
  HPE_HEADER_OVERFLOW: { ...PROBLEMS.headersTooLarge, reason: 'Request Header Fields Too Large' },
  ERR_HTTP_REQUEST_TIMEOUT: { ...PROBLEMS.requestTimeout, reason: 'Request Timeout' },
}
const BAD_REQUEST: BrokenRequestAnswer = { ...PROBLEMS.malformedBody, reason: 'Bad Request' }

interface BrokenRequestAnswer {
  readonly status: number
  readonly reason: string
  readonly code: MessageKey
}

/**
 * Written on the socket, still as an ApiError. As Node itself does, nothing is written
 * once a response has started on the socket (a client still sending a body the route
 * never read), so no second answer corrupts it.
 */
function writeBrokenRequestAnswer(error: Error & { code?: string }, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy()
    return
  }
  const { status, reason, code } = (error.code && BROKEN_REQUESTS[error.code]) || BAD_REQUEST
  const body = JSON.stringify({ code, message: message('en', code) })
  socket.end(
    // The request's own X-Track was never parsed: the answer carries a new one.
    `HTTP/1.1 ${status} ${reason}\r\nX-Track: ${randomUUID()}\r\nContent-Type: ${JSON_CONTENT_TYPE}\r\n` +
      `X-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  )
}

/**
 * Bytes HTTP parsing failed on (Node's clientError). They come after the requests
 * already received on the connection, so they are answered after those, in order.
 */
function answerBrokenRequest(error: Error & { code?: string }, socket: Socket): void {
  const answer = () => writeBrokenRequestAnswer(error, socket)
  const line = existingLineOf(socket)
  if (line) line.endWith(answer)
  else answer()
}

/** Fastify options that route framework-level failures through the same mapping. */
export const errorHandlingOptions: Pick<
  FastifyServerOptions,
  'clientErrorHandler' | 'frameworkErrors'
> = {
  clientErrorHandler: answerBrokenRequest,
  frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
    // A path that cannot even be decoded names no resource.
    sendApiError(
      request,
      reply,
      error.code === 'FST_ERR_BAD_URL' ? new ApiProblem(PROBLEMS.resourceNotFound) : error,
    ),
}

export function handleErrors(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendApiError(request, reply, error))
}
