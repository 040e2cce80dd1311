import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { ApiProblem, PROBLEMS } from '../errors/problems.js'
import { acceptsJson, JSON_CONTENT_TYPE } from './media-types.js'
import { acceptJsonBodies, ignoreBodies } from './request-body.js'
import { checkRequestHead, mustCloseAfterAnswer } from './request-head.js'

const TRACK_ID = /^[A-Za-z0-9._-]{1,64}$/

/** The request id: the client's X-Track when well-formed, else a new one (Fastify's genReqId). */
export function trackIdOf(request: IncomingMessage): string {
  const given = request.headers['x-track']
  return typeof given === 'string' && TRACK_ID.test(given) ? given : randomUUID()
}

/**
 * What every response shares, whatever serves it: the X-Track header, and no content
 * sniffing by browsers; Cache-Control: no-store where the route says so; Connection:
 * close after faulty framing. Then the request head's own checks (Host, Expect). The
 * body of a request no route matches is never read, so its 404/405 comes first
 * (decisions §2).
 */
export function applyRootConventions(app: FastifyInstance): void {
  ignoreBodies(app)
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-track', request.id).header('x-content-type-options', 'nosniff')
    if (request.routeOptions.config.noStore === true) reply.header('cache-control', 'no-store')
    if (mustCloseAfterAnswer(request)) reply.header('connection', 'close')
    done(checkRequestHead(request))
  })
}

/**
 * The JSON conventions of a context (the API, the health checks), in the order of
 * decisions §2: the exact JSON Content-Type, 406 for an Accept without JSON, only
 * application/json bodies, and 400 for a body the route needs but did not get.
 */
export function applyJsonConventions(context: FastifyInstance): void {
  acceptJsonBodies(context)
  context.addHook('onRequest', (request, reply, done) => {
    reply.header('content-type', JSON_CONTENT_TYPE)
    done(acceptsJson(request.headers.accept) ? undefined : new ApiProblem(PROBLEMS.notAcceptable))
  })
  context.addHook('preValidation', (request, _reply, done) => {
    const missing = request.body === undefined && request.routeOptions.schema?.body !== undefined
    done(missing ? new ApiProblem(PROBLEMS.malformedBody) : undefined)
  })
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's answers carry personal data (the member routes), so no cache may keep
     * them, not a shared proxy's, not the browser's disk: `config: { noStore: true }`.
     */
    noStore?: boolean
  }
}
