import type { FastifyReply, FastifyRequest } from 'fastify'

/** Answers without a body, so without a Content-Type either. */
function empty(reply: FastifyReply, status: 200 | 204 | 304): FastifyReply {
  reply.removeHeader('content-type')
  return reply.code(status).send()
}

export const noContent = (reply: FastifyReply) => empty(reply, 204)
export const notModified = (reply: FastifyReply) => empty(reply, 304)

/** OPTIONS: 200 with the Allow header of the route's path. */
export function allowedMethods(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('allow', request.server.allowHeader(request.routeOptions.url ?? ''))
  return empty(reply, 200)
}
