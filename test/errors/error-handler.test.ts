import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiProblem } from '../../src/api/errors/api-problem.js'
import { domainProblems } from '../../src/api/errors/domain-errors.js'
import { toApiError } from '../../src/api/errors/to-api-error.js'
import { errorHandlingOptions, handleErrors } from '../../src/api/reply/send-api-error.js'
import {
  BusinessRuleError,
  DataAccessError,
  OptimisticLockError,
  PreconditionFailedError,
  ResourceNotFoundError,
  ResultLimitExceededError,
  ServiceBusyError,
} from '../../src/domain/common/errors.js'
import {
  IdempotencyClaimLostError,
  IdempotencyKeyInFlightError,
  IdempotencyKeyReusedError,
} from '../../src/domain/idempotency/service.js'
import { ANSWERS, RESOURCES } from '../../src/resources/index.js'
import { JSON_TYPE, SYSTEM_ERROR } from '../helpers/api-errors.js'
import { causeViolations } from '../helpers/error-causes.js'

/**
 * The last resort: whatever fails while an answer is serialized, the client still gets
 * `500 e.ex.fw.9001` as an ApiError with the exact Content-Type, never the framework's
 * own body. Routes whose answers cannot be serialized exist only here.
 */
describe('an answer that cannot be serialized', () => {
  let app: FastifyInstance

  beforeAll(async () => {
    app = Fastify({ logger: false, ...errorHandlingOptions })
    handleErrors(app, domainProblems(RESOURCES))
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

/**
 * The mapping itself (decisions §2: an answer's code names its cause): every code of the
 * catalogue renders with its own status and a message with nothing left unfilled, in
 * each language; every library error the service can meet maps to the code of its cause,
 * and any other error is the service's own 500, never a code guessed from a status.
 */
describe('the one mapping from errors to ApiErrors', () => {
  const ALL_ON = { authentication: true, rateLimit: true }

  /** A domain error as the error handler answers it: through the resources' answers. */
  const domainProblem = domainProblems(RESOURCES)
  const answered = (error: Error) => toApiError(domainProblem(error) ?? error, 'en')

  it.each([...ANSWERS.keys()])('renders %s with its status, its message filled', (code) => {
    for (const locale of ['en', 'ja'] as const) {
      for (const answer of ANSWERS.get(code) ?? []) {
        const rendered = toApiError(new ApiProblem(answer, { args: answer.exampleArgs }), locale)
        expect(rendered.status).toBe(answer.status)
        expect(rendered.body.code).toBe(code)
        expect(causeViolations(rendered.status, rendered.body, ALL_ON)).toEqual([])
      }
    }
  })

  it.each([
    [new ResourceNotFoundError('todo', 'T1'), 404, 'e.ex.td.5001', {}],
    [new ResourceNotFoundError('member', 'M1'), 404, 'e.ex.mm.5001', {}],
    [new BusinessRuleError('todo-already-finished', 'T1'), 409, 'e.ex.td.8001', {}],
    [new BusinessRuleError('sign-id-in-use', 'a@example.com'), 409, 'e.ex.mm.8001', {}],
    [new ResultLimitExceededError(1000), 400, 'e.ex.fw.7002', {}],
    [new OptimisticLockError(), 409, 'e.ex.fw.8002', {}],
    [new PreconditionFailedError(), 412, 'e.ex.fw.8002', {}],
    [new DataAccessError(), 500, 'e.ex.fw.9002', {}],
    [new ServiceBusyError(3), 503, 'e.ex.fw.9005', { 'retry-after': '3' }],
    [new IdempotencyKeyReusedError(), 422, 'e.ex.fw.7008', {}],
    [new IdempotencyKeyInFlightError(), 409, 'e.ex.fw.8003', {}],
    [new IdempotencyClaimLostError(), 409, 'e.ex.fw.8003', {}],
  ])('answers the domain error %s with %i %s', (error, status, code, headers) => {
    const rendered = answered(error)
    expect({ status: rendered.status, code: rendered.body.code }).toEqual({ status, code })
    expect(rendered.headers).toEqual(headers)
    expect(causeViolations(rendered.status, rendered.body, ALL_ON)).toEqual([])
  })

  it('names the resource and the subject in the message', () => {
    expect(answered(new ResourceNotFoundError('member', 'qhsGy4neFe')).body.message).toContain(
      'qhsGy4neFe',
    )
    expect(
      answered(new BusinessRuleError('sign-id-in-use', 'taro@example.com')).body.message,
    ).toContain('taro@example.com')
  })

  it.each([
    ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 415, 'e.ex.fw.6003'],
    ['FST_ERR_CTP_BODY_TOO_LARGE', 413, 'e.ex.fw.7007'],
    ['FST_ERR_CTP_EMPTY_JSON_BODY', 400, 'e.ex.fw.7003'],
    ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400, 'e.ex.fw.7003'],
    ['FST_ERR_CTP_INVALID_JSON_BODY', 400, 'e.ex.fw.7003'],
    ['FST_ERR_BAD_URL', 404, 'e.ex.fw.5001'],
  ])("maps Fastify's %s to %i %s", (fastifyCode, status, code) => {
    const error = Object.assign(new Error('refused'), { code: fastifyCode, statusCode: 400 })
    const rendered = toApiError(error, 'en')
    expect({ status: rendered.status, code: rendered.body.code }).toEqual({ status, code })
  })

  it.each([
    ['an error with a client status and no known cause', { statusCode: 403 }],
    [
      'a Fastify code the mapping does not know',
      { code: 'FST_ERR_SOMETHING_NEW', statusCode: 400 },
    ],
    ['an http-errors refusal outside a static file context', { status: 403, expose: true }],
    ['a code named like an object property', { code: 'constructor', statusCode: 400 }],
    ['a parser error code', { code: 'HPE_INVALID_METHOD', statusCode: 400 }],
  ])('answers %s as 500 e.ex.fw.9001', (_label, fields) => {
    const rendered = toApiError(Object.assign(new Error('unknown'), fields), 'en')
    expect({ status: rendered.status, body: rendered.body }).toEqual({
      status: 500,
      body: SYSTEM_ERROR,
    })
  })
})
