import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { ApiProblem, PROBLEMS } from '../errors/problems.js'
import { acceptsJson, JSON_CONTENT_TYPE } from './media-types.js'

const TRACK_ID = /^[A-Za-z0-9._-]{1,64}$/

/** The request id: the client's X-Track when well-formed, else a new one (Fastify's genReqId). */
export function trackIdOf(request: IncomingMessage): string {
  const given = request.headers['x-track']
  return typeof given === 'string' && TRACK_ID.test(given) ? given : randomUUID()
}

/**
 * What every response of the API shares, in the order of decisions §2: the X-Track
 * header and the exact JSON Content-Type, 406 for an Accept without JSON (after the
 * route check, which the 404 handler answers), and 400 for a body the route needs but
 * did not get.
 */
export function applyHttpConventions(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-track', request.id)
    reply.header('content-type', JSON_CONTENT_TYPE)
    if (!request.is404 && !acceptsJson(request.headers.accept)) {
      return done(new ApiProblem(PROBLEMS.notAcceptable))
    }
    done()
  })

  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body === undefined && request.routeOptions.schema?.body !== undefined) {
      return done(new ApiProblem(PROBLEMS.malformedBody))
    }
    done()
  })
}
