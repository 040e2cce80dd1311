// Bare Fastify doing only what the contract asks of every GET by id, and nothing else:
// the same lookup (lookups.mjs), the parameters validated, the JSON through a response
// schema, X-Track (the client's when well-formed, else a random UUID), nosniff,
// Cache-Control: no-store on a member, the exact Content-Type, the ETag and
// If-None-Match (compared whole), and the service's one log line per answer with its
// fields (as src/api/http/request-log.ts writes it), through pino's asynchronous
// destination gathering 4,096 bytes (LOG_BUFFER's default). No connection lines, no
// other stage, no metrics: what the contract's own output costs on this stack, shown
// beside the service against the same reference (docs/performance.md).
import { randomUUID } from 'node:crypto'
import Fastify, { LogController } from 'fastify'
import pino from 'pino'
import { lookupsFromEnvironment, memberResource, todoResource } from './lookups.mjs'

const TRACK_ID = /^[A-Za-z0-9._-]{1,64}$/
const JSON_TYPE = 'application/json;charset=UTF-8'

const text = { type: 'string' }
const nullableText = { type: ['string', 'null'] }
const object = (properties) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
})
const todoSchema = object({
  todoId: text,
  todoTitle: text,
  finished: { type: 'boolean' },
  createdAt: text,
})
const memberSchema = object({
  memberId: text,
  firstName: text,
  lastName: text,
  genderCode: text,
  dateOfBirth: text,
  emailAddress: text,
  telephoneNumber: nullableText,
  zipCode: nullableText,
  address: nullableText,
  credential: object({ signId: text, passwordLastChangedAt: text, lastModifiedAt: text }),
  createdAt: text,
  lastModifiedAt: text,
})
const pathOf = (name) => object({ [name]: text })

const lookups = await lookupsFromEnvironment()
const app = Fastify({
  logger: {
    level: 'info',
    stream: pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 1000 }),
  },
  logController: new (class extends LogController {
    incomingRequest() {}
    requestCompleted(_error, request, reply) {
      reply.log.info(
        {
          method: request.method,
          route: request.routeOptions.url ?? null,
          status: reply.statusCode,
          durationMs: Math.round(reply.elapsedTime * 10) / 10,
        },
        'request completed',
      )
    }
  })({ requestIdLogLabel: 'track' }),
  genReqId: (raw) => {
    const given = raw.headers['x-track']
    return typeof given === 'string' && TRACK_ID.test(given) ? given : randomUUID()
  },
})
app.addHook('onRequest', (request, reply, done) => {
  reply.header('x-track', request.id).header('x-content-type-options', 'nosniff')
  done()
})

/** The resource with its ETag, or 304 when If-None-Match names it. */
function answer(request, reply, resource, etag) {
  reply.header('content-type', JSON_TYPE).header('etag', etag)
  if (request.headers['if-none-match'] === etag) return reply.code(304).send()
  return resource
}

app.get(
  '/todos/:todoId',
  { schema: { params: pathOf('todoId'), response: { 200: todoSchema } } },
  async (request, reply) => {
    const todo = todoResource(await lookups.rows.todo(request.params.todoId))
    return answer(request, reply, todo, `"${todo.finished ? 2 : 1}"`)
  },
)
app.get(
  '/members/:memberId',
  { schema: { params: pathOf('memberId'), response: { 200: memberSchema } } },
  async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const row = await lookups.rows.member(request.params.memberId)
    return answer(request, reply, memberResource(row), `"${row.version}"`)
  },
)
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
