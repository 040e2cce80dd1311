import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
} from 'fastify'
import { ServiceBusyError } from '../../domain/common/errors.js'
import { existingLineOf } from '../connection/connection-lines.js'
import { refusedRequestLine } from '../connection/refused-request-line.js'
import type { ApiProblem } from '../errors/api-problem.js'
import type { DomainProblem } from '../errors/domain-errors.js'
import {
  brokenRequestProblem,
  LAST_RESORT,
  type Rendered,
  toApiError,
} from '../errors/to-api-error.js'
import { resolveLocale } from '../messages/index.js'
import { freshTrackId, markTracked, TRACK_HEADER } from '../observability/track-id.js'
import { JSON_CONTENT_TYPE } from '../request/media-types.js'

function logFailure(request: FastifyRequest, error: unknown, status: number): void {
  // A busy answer is the service working as designed under load; the metrics count it.
  if (status >= 500 && !(error instanceof ServiceBusyError)) {
    request.log.error({ err: error }, 'request failed')
  } else {
    request.log.debug({ err: error }, 'request rejected')
  }
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
 * still an ApiError with the exact Content-Type. `problem` is what a domain error is
 * answered as (domain-errors.ts); the log names the error itself, with its cause.
 */
export function sendApiError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  problem?: ApiProblem,
) {
  const { status, body, headers } = renderSafely(request, problem ?? error)
  logFailure(request, error, status)
  for (const name of SUCCESS_HEADERS) reply.removeHeader(name)
  return markTracked(request, reply.code(status).headers(headers))
    .header('content-type', JSON_CONTENT_TYPE)
    .serializer(asIs)
    .send(JSON.stringify(body))
}

/**
 * The answer to bytes Node's parser refused: a request line with a method it does not
 * know is answered as its route would answer it (404, or 405 with Allow); anything
 * else by the parser's error code.
 */
function brokenRequestAnswer(app: FastifyInstance, error: Error & { code?: string }): Rendered {
  const line = refusedRequestLine(error)
  const problem = line
    ? app.unmatchedRequestProblem(line.method, line.target)
    : brokenRequestProblem(error)
  return toApiError(problem, 'en')
}

/**
 * Written on the socket, still as an ApiError, and the connection closed: the parser
 * cannot find where the next request starts. As Node itself does, nothing is written
 * once a response has started on the socket (a client still sending a body the route
 * never read), so no second answer corrupts it.
 */
function writeBrokenRequestAnswer(answer: Rendered, socket: Socket, afterStarted: boolean): void {
  if (!socket.writable || afterStarted) {
    socket.destroy()
    return
  }
  const { status, headers } = answer
  const body = JSON.stringify(answer.body)
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`)
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${TRACK_HEADER}: ${freshTrackId()}\r\n` +
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
  const answer = (afterStarted: boolean) =>
    writeBrokenRequestAnswer(brokenRequestAnswer(this, error), socket, afterStarted)
  const line = existingLineOf(socket)
  if (line) line.endWith(answer)
  else answer(false)
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

/** Every error a route or a stage throws, a domain error answered as `domainProblem` says. */
export function handleErrors(app: FastifyInstance, domainProblem: DomainProblem): void {
  app.setErrorHandler((error, request, reply) =>
    sendApiError(request, reply, error, domainProblem(error)),
  )
}
