import type { FastifyInstance } from 'fastify'
import { sendApiError } from '../reply/send-api-error.js'
import { staticFileProblem } from './static-file-errors.js'

/**
 * Answers a static file context's refusals by their cause, as ApiErrors: set inside the
 * context that registers @fastify/static, so no other error is read this way.
 */
export function answerStaticFileRefusals(context: FastifyInstance): void {
  context.setErrorHandler((error, request, reply) =>
    sendApiError(request, reply, staticFileProblem(error) ?? error),
  )
}
