import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorHandlingOptions, handleErrors } from '../../src/api/error-handler.js'
import { JSON_TYPE, SYSTEM_ERROR } from '../helpers/api-errors.js'

/**
 * The last resort: whatever fails while an answer is serialized, the client still gets
 * `500 e.ex.fw.9001` as an ApiError with the exact Content-Type, never the framework's
 * own body. Routes whose answers cannot be serialized exist only here.
 */
describe('an answer that cannot be serialized', () => {
  let app: FastifyInstance

  beforeAll(async () => {
    app = Fastify({ logger: false, ...errorHandlingOptions })
    handleErrors(app)
    app.get(
      '/not-an-integer',
      { schema: { response: { 200: { type: 'object', properties: { n: { type: 'integer' } } } } } },
      async () => ({ n: Number.POSITIVE_INFINITY }),
    )
    app.get('/serializer-throws', async (_request, reply) => {
      reply.serializer(() => {
        throw new Error('the chosen serializer fails')
      })
      return { any: 'thing' }
    })
    await app.ready()
  })
  afterAll(() => app.close())

  it.each(['/not-an-integer', '/serializer-throws'])('%s answers 500 e.ex.fw.9001', async (url) => {
    const response = await app.inject({ method: 'GET', url })
    expect(response.statusCode).toBe(500)
    expect(response.headers['content-type']).toBe(JSON_TYPE)
    expect(response.json()).toEqual(SYSTEM_ERROR)
  })
})
