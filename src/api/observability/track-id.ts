import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** The header that names a request in every answer and log line (the contract's X-Track). */
export const TRACK_HEADER = 'x-track'

const TRACK_ID = /^[A-Za-z0-9._-]{1,64}$/

/** A request's id: the client's X-Track when well-formed, else a new one (Fastify's genReqId). */
export function trackIdOf(request: IncomingMessage): string {
  const given = request.headers[TRACK_HEADER]
  return typeof given === 'string' && TRACK_ID.test(given) ? given : freshTrackId()
}

/** The id of an answer whose request was never parsed, so never named. */
export const freshTrackId = (): string => randomUUID()

/**
 * Sets X-Track on the answer: in the first stage of every request, and again by the error
 * answer, which may come before that stage ran (a path Fastify cannot decode).
 */
export function markTracked(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply.header(TRACK_HEADER, request.id)
}
