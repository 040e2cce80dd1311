import type { FastifyInstance } from 'fastify'
import { ApiProblem } from '../errors/api-problem.js'
import { PROBLEMS } from '../errors/catalogue.js'
import { addRouteHook, readsBody } from '../route-policy/route-hooks.js'
import { acceptsJson, JSON_CONTENT_TYPE } from './media-types.js'
import { acceptJsonBodies } from './request-body.js'

/**
 * The conventions of a JSON context (the API, the health checks), in the order of
 * docs/contract/decisions.md §2: the exact JSON Content-Type, 406 for an Accept without
 * JSON, only application/json bodies, and 400 for a body the route needs but did not get.
 */
export function applyJsonContext(context: FastifyInstance): void {
  acceptJsonBodies(context)
  context.addHook('onRequest', (request, reply, done) => {
    reply.header('content-type', JSON_CONTENT_TYPE)
    done(acceptsJson(request.headers.accept) ? undefined : new ApiProblem(PROBLEMS.notAcceptable))
  })
  context.addHook('onRoute', (route) => {
    if (!readsBody(route)) return
    addRouteHook(route, 'preValidation', (request, _reply, done) => {
      done(request.body === undefined ? new ApiProblem(PROBLEMS.malformedBody) : undefined)
    })
  })
}
