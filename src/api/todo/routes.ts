import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { todoVersion } from '../../domain/todo/model.js'
import type { TodoService } from '../../domain/todo/service.js'
import { etagOf, ifMatchCondition, ifNoneMatchHits } from '../http/etag.js'
import { locationOf } from '../http/location.js'
import { allowedMethods, noContent, notModified } from '../http/replies.js'
import { ignoreBodies } from '../http/request-body.js'
import { toTodoResource } from './mapper.js'
import { TodoCreateBody, TodoPath, TodoResource } from './schemas.js'

export interface TodoRoutesOptions {
  readonly service: TodoService
}

export const todoRoutes: FastifyPluginAsyncTypebox<TodoRoutesOptions> = async (
  app,
  { service },
) => {
  app.get('/todos', { schema: { response: { 200: Type.Array(TodoResource) } } }, async () =>
    (await service.list()).map(toTodoResource),
  )

  app.post(
    '/todos',
    { schema: { body: TodoCreateBody, response: { 201: TodoResource } } },
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
    { schema: { params: TodoPath, response: { 200: TodoResource } } },
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
    context
      .withTypeProvider<TypeBoxTypeProvider>()
      .put(
        '/todos/:todoId',
        { schema: { params: TodoPath, response: { 200: TodoResource } } },
        async (request, reply) => {
          const condition = ifMatchCondition(request.headers['if-match'])
          const todo = await service.finish(request.params.todoId, condition)
          reply.header('etag', etagOf(todoVersion(todo)))
          return toTodoResource(todo)
        },
      )
  })

  app.delete('/todos/:todoId', { schema: { params: TodoPath } }, async (request, reply) => {
    await service.delete(request.params.todoId, ifMatchCondition(request.headers['if-match']))
    return noContent(reply)
  })

  app.options('/todos', async (request, reply) => allowedMethods(request, reply))

  app.options('/todos/:todoId', { schema: { params: TodoPath } }, async (request, reply) => {
    await service.get(request.params.todoId)
    return allowedMethods(request, reply)
  })
}
