import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { todoVersion } from '../../domain/todo/model.js'
import type { TodoService } from '../../domain/todo/service.js'
import { registerOptionsRoutes } from '../common/options-routes.js'
import { errorResponses, noBody } from '../common/responses.js'
import { etagOf, ifMatchCondition, ifNoneMatchHits } from '../http/etag.js'
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
        response: { 200: Type.Array(TodoResource), ...errorResponses() },
      },
    },
    async () => (await service.list()).map(toTodoResource),
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
    },
    async (request, reply) => {
      const todo = await service.create({ todoTitle: request.body.todoTitle })
      reply
        .code(201)
        .header('location', locationOf(request, todo.todoId))
        .header('etag', etagOf(todoVersion(todo)))
      return toTodoResource(todo)
    },
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
