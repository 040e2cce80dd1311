import { parse as parseContentType } from 'content-type'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiProblem } from '../errors/api-problem.js'
import { PROBLEMS } from '../errors/catalogue.js'
import { addRouteHook, readsBody } from '../route-policy/route-hooks.js'

/** Throws on bytes that are not UTF-8 (a lone surrogate's encoding, overlongs, stray bytes). */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/** Is this coding header absent or only `accepted` (any letter case)? */
function onlyCoding(header: string | undefined, accepted: string): boolean {
  return header === undefined || header.trim().toLowerCase() === accepted
}

/**
 * A body the service can read as it is: UTF-8 text (a `charset` parameter, if any, says
 * utf-8) sent without a content coding, and framed by no transfer coding but chunked
 * (Node undoes only that one: `gzip, chunked` would reach the parser still compressed).
 * Anything else would be guessed at or stored as mojibake, so it is refused (decisions §2).
 */
function isReadableAsSent(request: FastifyRequest): boolean {
  if (!onlyCoding(request.headers['content-encoding'], 'identity')) return false
  if (!onlyCoding(request.headers['transfer-encoding'], 'chunked')) return false
  const { charset } = parseContentType(request.headers['content-type'] ?? '').parameters
  return charset === undefined || charset.toLowerCase() === 'utf-8'
}

function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) throw new ApiProblem(PROBLEMS.malformedBody)
  try {
    return JSON.parse(strictUtf8.decode(bytes))
  } catch {
    throw new ApiProblem(PROBLEMS.malformedBody)
  }
}

/**
 * application/json (any parameters, any letter case) is the only body the API reads;
 * another Content-Type is 415 (Fastify's own error, mapped by the error handler).
 * JSON.parse keeps "__proto__" as a plain key, which validation then rejects as unknown.
 */
export function acceptJsonBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJson(body as Buffer))
    } catch (error) {
      done(error as Error, undefined)
    }
  })
  // Before the body is read, so that such a body is refused with 415 even when too large.
  app.addHook('onRoute', (route) => {
    if (!readsBody(route)) return
    addRouteHook(route, 'preParsing', (request, _reply, payload, done) => {
      if (isReadableAsSent(request)) done(null, payload)
      else done(new ApiProblem(PROBLEMS.unsupportedMediaType))
    })
  })
}

/**
 * For routes whose body means nothing (PUT /todos/{id}): any body, of any type, is
 * left unread; Node discards it once the response is sent. Where a context serves only
 * such routes, its Content-Type means nothing either (`contentTypeToo`): one that is no
 * media type at all (`/`) would otherwise be Fastify's 415 before any parser is asked.
 */
export function ignoreBodies(app: FastifyInstance, { contentTypeToo = false } = {}): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined))
  if (!contentTypeToo) return
  app.addHook('onRequest', (request, _reply, done) => {
    delete request.headers['content-type']
    done()
  })
}
