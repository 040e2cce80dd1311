import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { type Todo, todoVersion } from '../../domain/todo/model.js'
import type { TodoService } from '../../domain/todo/service.js'
import { registerOptionsRoutes } from '../common/options-routes.js'
import { errorResponses, noBody } from '../common/responses.js'
import { etagOf, ifMatchCondition, ifNoneMatchHits } from '../http/etag.js'
import { answerCreated } from '../http/idempotency.js'
import { jsonArrayStream } from '../http/json-array-stream.js'
import { locationOf } from '../http/location.js'
import { noContent, notModified } from '../http/replies.js'
import { ignoreBodies } from '../http/request-body.js'
import { toTodoResource } from './mapper.js'
import { TodoCreateBody, TodoPath, TodoResource } from './schemas.js'

export interface TodoRoutesOptions {
  readonly service: TodoService
}

const tags = ['todos']

export const todoRoutes: FastifyPluginAsyncTypebox<TodoRoutesOptions> = async (
  app,
  { service },
) => {
  app.get(
    '/todos',
    {
      schema: {
        tags,
        summary: 'Every Todo, oldest first.',
        // Documents the body. A stream skips the serializer: json-array-stream.ts writes
        // each toTodoResource() with JSON.stringify, the same fields in the same order.
        response: { 200: Type.Array(TodoResource), ...errorResponses() },
      },
    },
    // Every Todo, streamed page by page (decisions §7; see json-array-stream.ts). The first
    // page is read before answering: a database failure then is still a 500 ApiError.
    async (request, reply) => {
      if (request.method === 'HEAD') {
        // GET's status and headers. Fastify would read a streamed body to the end only to
        // discard it, so one row is read (to fail as GET would) and the body is empty.
        ;(await jsonArrayStream(service.list(1), toTodoResource)).destroy()
        return reply.send(Readable.from([]) as never)
      }
      // The typed reply expects the array itself; a stream of its text is sent as it is.
      return reply.send((await jsonArrayStream(service.list(), toTodoResource)) as never)
    },
  )

  app.post(
    '/todos',
    {
      schema: {
        tags,
        summary: 'Create an open Todo (Location and ETag headers name it).',
        body: TodoCreateBody,
        response: { 201: TodoResource, ...errorResponses(400, 409, 413, 415, 422) },
      },
      config: { idempotent: true },
    },
    async (request, reply) =>
      answerCreated(
        request,
        reply,
        (alongside) => service.create({ todoTitle: request.body.todoTitle }, alongside),
        (todo: Todo) => ({
          resource: toTodoResource(todo),
          location: locationOf(request, todo.todoId),
          etag: etagOf(todoVersion(todo)),
        }),
      ),
  )

  app.get(
    '/todos/:todoId',
    {
      schema: {
        tags,
        summary: 'One Todo, with its ETag; If-None-Match gives 304.',
        params: TodoPath,
        response: {
          200: TodoResource,
          304: noBody('If-None-Match names the current ETag.'),
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const todo = await service.get(request.params.todoId)
      const etag = etagOf(todoVersion(todo))
      reply.header('etag', etag)
      if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return notModified(reply)
      return toTodoResource(todo)
    },
  )

  // Finishing takes no body: whatever is sent, of whatever type, is ignored.
  await app.register(async (context) => {
    ignoreBodies(context)
    context.withTypeProvider<TypeBoxTypeProvider>().put(
      '/todos/:todoId',
      {
        schema: {
          tags,
          summary: 'Finish the Todo (no body; If-Match makes it conditional).',
          params: TodoPath,
          response: { 200: TodoResource, ...errorResponses(404, 409, 412) },
        },
      },
      async (request, reply) => {
        const condition = ifMatchCondition(request.headers['if-match'])
        const todo = await service.finish(request.params.todoId, condition)
        reply.header('etag', etagOf(todoVersion(todo)))
        return toTodoResource(todo)
      },
    )
  })

  app.delete(
    '/todos/:todoId',
    {
      schema: {
        tags,
        summary: 'Delete the Todo (If-Match makes it conditional).',
        params: TodoPath,
        response: { 204: noBody('Deleted.'), ...errorResponses(400, 404, 412, 413, 415) },
      },
    },
    async (request, reply) => {
      await service.delete(request.params.todoId, ifMatchCondition(request.headers['if-match']))
      return noContent(reply)
    },
  )

  registerOptionsRoutes(app, {
    collection: '/todos',
    idParam: 'todoId',
    params: TodoPath,
    tags,
    noun: 'Todo',
    exists: (id) => service.get(id),
  })
}
