import type { FastifyInstance } from 'fastify'
import { ApiProblem, PROBLEMS } from '../errors/problems.js'

/**
 * application/json (any parameters, any letter case) is the only body the API reads;
 * another Content-Type is 415 (Fastify's own error, mapped by the error handler).
 * JSON.parse keeps "__proto__" as a plain key, which validation then rejects as unknown.
 */
export function acceptJsonBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(new ApiProblem(PROBLEMS.malformedBody), undefined)
    try {
      done(null, JSON.parse(body as string))
    } catch {
      done(new ApiProblem(PROBLEMS.malformedBody), undefined)
    }
  })
}

/**
 * For routes whose body means nothing (PUT /todos/{id}): any body, of any type, is
 * left unread; Node discards it once the response is sent.
 */
export function ignoreBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined))
}
