import type { FastifyReply, FastifyRequest } from 'fastify'
import { markTracked } from '../observability/track-id.js'
import { mustCloseAfterAnswer } from '../request/request-head.js'

/**
 * What every answer shares, whatever serves it: X-Track (track-id.ts), no content
 * sniffing by browsers, Cache-Control: no-store where the route's policy says `noStore`,
 * and Connection: close after faulty framing (request-head.ts).
 */
export function setCommonHeaders(request: FastifyRequest, reply: FastifyReply): void {
  markTracked(request, reply).header('x-content-type-options', 'nosniff')
  if (request.routeOptions.config.noStore === true) reply.header('cache-control', 'no-store')
  if (mustCloseAfterAnswer(request)) reply.header('connection', 'close')
}
