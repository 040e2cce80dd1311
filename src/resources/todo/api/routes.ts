import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import {
  BODY_ERRORS,
  BODY_FORMAT_ERRORS,
  errorResponses,
  PRECONDITION_ERRORS,
} from '../../../api/errors/documented-answers.js'
import { answerCreated } from '../../../api/idempotency/idempotency-keys.js'
import { noContent, notModified } from '../../../api/reply/bodiless-replies.js'
import { etagOf, ifMatchCondition, ifNoneMatchHits } from '../../../api/reply/etag.js'
import { jsonArrayStream } from '../../../api/reply/json-array-stream.js'
import { locationOf } from '../../../api/reply/location.js'
import { ignoreBodies } from '../../../api/request/request-body.js'
import { registerOptionsRoutes } from '../../../api/resource-routes/options-routes.js'
import { described, noBody } from '../../../api/schemas/responses.js'
import type { IdempotencyScope } from '../../../domain/idempotency/service.js'
import { type Todo, todoVersion } from '../domain/model.js'
import type { TodoScope, TodoService } from '../domain/service.js'
import { TODO_ALREADY_FINISHED, TODO_NOT_FOUND } from './errors.js'
import { toTodoResource } from './mapper.js'
import { TodoCreateBody, TodoPath, TodoResource } from './schemas.js'

export interface TodoRoutesOptions {
  /** Its creations keep an Idempotency-Key's outcome in their own transaction. */
  readonly service: TodoService<TodoScope & IdempotencyScope>
}

/** The tag of these routes' operations in the OpenAPI document. */
export const TODO_TAG = {
  name: 'todos',
  description: 'Tasks with a title and a finished flag.',
}
const tags = [TODO_TAG.name]

export const todoRoutes: FastifyPluginAsyncTypebox<TodoRoutesOptions> = async (
  app,
  { service },
) => {
  app.get(
    '/todos',
    {
      schema: {
        operationId: 'listTodos',
        description:
          'Every Todo, ordered by createdAt then todoId, streamed as one JSON array however many there are.',
        tags,
        summary: 'Every Todo, oldest first.',
        // Documents the body. A stream skips the serializer: json-array-stream.ts writes
        // each toTodoResource() with JSON.stringify, the same fields in the same order.
        response: {
          200: Type.Array(TodoResource, { description: 'Every Todo, oldest first.' }),
          ...errorResponses(),
        },
      },
      config: { scope: 'todos:read', cost: 'todo-list' },
    },
    // Every Todo, streamed page by page (decisions §7; see json-array-stream.ts). The first
    // page is read before answering: a database failure then is still a 500 ApiError.
    async (request, reply) => {
      if (request.method === 'HEAD') {
        // GET's status and headers. Fastify would read a streamed body to the end only to
        // discard it, so one row is read (to fail as GET would) and the body is empty.
        ;(await jsonArrayStream(service.list(1, request.clientKey), toTodoResource)).destroy()
        return reply.send(Readable.from([]) as never)
      }
      // The typed reply expects the array itself; a stream of its text is sent as it is.
      return reply.send(
        (await jsonArrayStream(
          service.list(undefined, request.clientKey),
          toTodoResource,
        )) as never,
      )
    },
  )

  app.post(
    '/todos',
    {
      schema: {
        operationId: 'createTodo',
        description:
          'Creates an unfinished Todo stamped with the server time. A Todo received earlier may be posted back: its todoId, finished and createdAt are type-checked and ignored. An Idempotency-Key makes a retry safe.',
        tags,
        summary: 'Create an open Todo (Location and ETag headers name it).',
        body: TodoCreateBody,
        response: {
          201: described(TodoResource, 'The created Todo.', ['ETag', 'Location']),
          ...errorResponses(BODY_ERRORS),
        },
      },
      config: { scope: 'todos:write', idempotent: true },
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
        operationId: 'getTodo',
        description:
          'The Todo and its ETag. With If-None-Match naming the current ETag the answer is 304 without a body.',
        tags,
        summary: 'One Todo, with its ETag; If-None-Match gives 304.',
        params: TodoPath,
        response: {
          200: described(TodoResource, 'The Todo.', ['ETag']),
          304: noBody('If-None-Match names the current ETag.', ['ETag']),
          ...errorResponses(TODO_NOT_FOUND),
        },
      },
      config: { scope: 'todos:read' },
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
    ignoreBodies(context, { contentTypeToo: true })
    context.withTypeProvider<TypeBoxTypeProvider>().put(
      '/todos/:todoId',
      {
        schema: {
          operationId: 'finishTodo',
          description:
            'Marks the Todo finished; there is no way back, so finishing it again is 409 e.ex.td.8001. No body is read. With If-Match, only while the Todo is in the state that ETag names (else 412).',
          tags,
          summary: 'Finish the Todo (no body; If-Match makes it conditional).',
          params: TodoPath,
          response: {
            200: described(TodoResource, 'The finished Todo.', ['ETag']),
            ...errorResponses(TODO_NOT_FOUND, TODO_ALREADY_FINISHED, PRECONDITION_ERRORS),
          },
        },
        config: { scope: 'todos:write' },
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
        operationId: 'deleteTodo',
        description:
          'Deletes the Todo. With If-Match, only while it is in the state that ETag names (else 412).',
        tags,
        summary: 'Delete the Todo (If-Match makes it conditional).',
        params: TodoPath,
        response: {
          204: noBody('Deleted.'),
          ...errorResponses(TODO_NOT_FOUND, PRECONDITION_ERRORS, BODY_FORMAT_ERRORS),
        },
      },
      config: { scope: 'todos:write' },
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
    operationIds: ['todosOptions', 'todoOptions'],
    notFound: TODO_NOT_FOUND,
    noun: 'Todo',
    exists: (id) => service.get(id),
  })
}
