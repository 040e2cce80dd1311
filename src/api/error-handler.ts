import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
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
import { refusedRequestLine } from './http/refused-request-line.js'
import { type Locale, message, resolveLocale } from './messages/index.js'

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

/**
 * Fastify's refusals of a request, by their code: each names its cause. Any other error
 * (a Fastify code not listed, a library's error no stage mapped) is the service's own
 * failure: 500 e.ex.fw.9001, its cause logged. No answer is chosen by a status alone.
 */
const FASTIFY_PROBLEMS: Readonly<Record<string, Problem>> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: PROBLEMS.unsupportedMediaType,
  FST_ERR_CTP_BODY_TOO_LARGE: PROBLEMS.bodyTooLarge,
  FST_ERR_CTP_EMPTY_JSON_BODY: PROBLEMS.malformedBody,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: PROBLEMS.malformedBody,
  FST_ERR_CTP_INVALID_JSON_BODY: PROBLEMS.malformedBody,
  // A path that cannot be decoded names no resource.
  FST_ERR_BAD_URL: PROBLEMS.resourceNotFound,
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
  const code = (error as Partial<FastifyError>).code
  const known =
    typeof code === 'string' && Object.hasOwn(FASTIFY_PROBLEMS, code)
      ? FASTIFY_PROBLEMS[code]
      : undefined
  return render(new ApiProblem(known ?? PROBLEMS.systemError), locale)
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
export function sendApiError(request: FastifyRequest, reply: FastifyReply, error: unknown) {
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

/** Requests Node could not parse, by its error code; any other parser error is 400. */
const BROKEN_REQUESTS: Readonly<Record<string, Problem>> = {
  HPE_HEADER_OVERFLOW: PROBLEMS.headersTooLarge,
  ERR_HTTP_REQUEST_TIMEOUT: PROBLEMS.requestTimeout,
}

/**
 * The answer to bytes Node's parser refused: a request line with a method it does not
 * know is answered as its route would answer it (404, or 405 with Allow); anything
 * else by the parser's error code.
 */
function brokenRequestAnswer(app: FastifyInstance, error: Error & { code?: string }): Rendered {
  const line = refusedRequestLine(error)
  if (line) return toApiError(app.unmatchedRequestProblem(line.method, line.target), 'en')
  const known =
    error.code && Object.hasOwn(BROKEN_REQUESTS, error.code)
      ? BROKEN_REQUESTS[error.code]
      : undefined
  return toApiError(new ApiProblem(known ?? PROBLEMS.malformedBody), 'en')
}

/**
 * Written on the socket, still as an ApiError, and the connection closed: the parser
 * cannot find where the next request starts. As Node itself does, nothing is written
 * once a response has started on the socket (a client still sending a body the route
 * never read), so no second answer corrupts it.
 */
function writeBrokenRequestAnswer(answer: Rendered, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy()
    return
  }
  const { status, headers } = answer
  const body = JSON.stringify(answer.body)
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`)
  socket.end(
    // The request's own X-Track was never parsed: the answer carries a new one.
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nX-Track: ${randomUUID()}\r\n` +
      `Content-Type: ${JSON_CONTENT_TYPE}\r\nX-Content-Type-Options: nosniff\r\n${extra.join('')}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
}

/**
 * Bytes HTTP parsing failed on (Node's clientError; Fastify calls this with the server
 * as `this`). They come after the requests already received on the connection, so they
 * are answered after those, in order.
 */
function answerBrokenRequest(
  this: FastifyInstance,
  error: Error & { code?: string },
  socket: Socket,
): void {
  const answer = () => writeBrokenRequestAnswer(brokenRequestAnswer(this, error), socket)
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
    sendApiError(request, reply, error),
}

export function handleErrors(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendApiError(request, reply, error))
}
