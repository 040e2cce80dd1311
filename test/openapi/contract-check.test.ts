import { describe, expect, it } from 'vitest'
import {
  type CheckedResponse,
  type ContractChecker,
  contractCheckerFor,
  contractError,
  JSON_CONTENT_TYPE,
} from '../helpers/contract.js'
import { SQLITE_TARGET } from '../helpers/databases.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * The contract check every API test runs (helpers/contract.ts, hooked into
 * TestServer.request) can fail: hand-made responses that break a document are reported,
 * one rule at a time, against a small OpenAPI 3.1 document and the server's own.
 */

const TRACK = { schema: { type: 'string', minLength: 1 } }

/** A small OpenAPI 3.1 document in the service's style. */
const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'contract check', version: '1' },
  paths: {
    '/api/v1/todos': {
      post: {
        operationId: 'createTodo',
        responses: {
          '201': {
            description: 'Created.',
            headers: {
              Location: { required: true, schema: { type: 'string', pattern: '^/api/v1/todos/' } },
              ETag: { required: true, schema: { type: 'string', pattern: '^"' } },
              'X-Track': TRACK,
            },
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/Todo' } },
            },
          },
          '400': { $ref: '#/components/responses/Problem' },
        },
      },
    },
    '/api/v1/todos/{todoId}': {
      get: {
        operationId: 'getTodo',
        parameters: [{ name: 'todoId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'One Todo.',
            headers: { ETag: { required: true, schema: { type: 'string' } }, 'X-Track': TRACK },
            content: {
              [JSON_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Todo' } },
            },
          },
          '304': { description: 'Not modified.', headers: { 'X-Track': TRACK } },
          '404': { $ref: '#/components/responses/Problem' },
        },
      },
      delete: {
        operationId: 'deleteTodo',
        responses: { '204': { description: 'Deleted.', headers: { 'X-Track': TRACK } } },
      },
    },
  },
  components: {
    schemas: {
      Todo: {
        type: 'object',
        required: ['todoId', 'todoTitle', 'finished', 'dueDate'],
        properties: {
          todoId: { type: 'string', format: 'uuid' },
          todoTitle: { type: 'string', minLength: 1, examples: ['Buy milk'] },
          finished: { type: 'boolean' },
          dueDate: { type: ['string', 'null'], format: 'date' },
          kind: { const: 'todo' },
        },
        additionalProperties: false,
      },
      ApiError: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string' },
          message: { type: 'string' },
          details: { type: 'array', items: { $ref: '#/components/schemas/ApiError' } },
        },
        additionalProperties: false,
      },
    },
    responses: {
      Problem: {
        description: 'A failure.',
        headers: { 'X-Track': TRACK },
        content: { [JSON_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/ApiError' } } },
      },
    },
  },
}

const TODO = {
  todoId: '01a20114-a9e4-73d1-b63d-c583549b3710',
  todoTitle: 'Buy milk',
  finished: false,
  dueDate: null,
}

function response(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): CheckedResponse {
  const text = body === undefined ? '' : JSON.stringify(body)
  return {
    status,
    headers: {
      'x-track': 'req-1',
      ...(text === '' ? {} : { 'content-type': JSON_CONTENT_TYPE }),
      ...headers,
    },
    text,
    body,
  }
}

const CREATED = { location: `/api/v1/todos/${TODO.todoId}`, etag: '"1"' }

describe('the contract check against a hand-made OpenAPI 3.1 document', () => {
  let checker: ContractChecker
  const check = async (method: string, path: string, answer: CheckedResponse) => {
    checker ??= await contractCheckerFor(DOCUMENT)
    return checker.check(method, path, answer)
  }

  it('passes responses that keep the document', async () => {
    expect(await check('POST', '/api/v1/todos', response(201, TODO, CREATED))).toEqual([])
    const item = `/api/v1/todos/${TODO.todoId}`
    const dated = { ...TODO, dueDate: '2026-02-28', kind: 'todo' }
    expect(await check('GET', item, response(200, dated, { etag: '"1"' }))).toEqual([])
    expect(await check('GET', item, response(304, undefined))).toEqual([])
    expect(await check('DELETE', item, response(204, undefined))).toEqual([])
    const nested = {
      code: 'e.ex.fw.7001',
      message: 'm',
      details: [{ code: 'NotNull', message: 'n' }],
    }
    expect(await check('POST', '/api/v1/todos', response(400, nested))).toEqual([])
  })

  it('compiles a document once', async () => {
    expect(contractCheckerFor(structuredClone(DOCUMENT))).toBe(contractCheckerFor(DOCUMENT))
  })

  it('leaves what no operation serves unchecked', async () => {
    expect(await check('GET', '/api/v1/nothing', response(418, 'x'))).toEqual([])
    expect(await check('PATCH', '/api/v1/todos/1', response(405, 'x'))).toEqual([])
    expect(await check('GET', '/api/v1/todos/', response(404, 'x'))).toEqual([])
  })

  it('reports a status the operation does not list', async () => {
    const violations = await check('GET', '/api/v1/todos/1', response(409, TODO))
    expect(violations).toEqual([expect.stringMatching(/status 409 is not documented/)])
    expect(violations[0]).toContain('GET /api/v1/todos/{todoId} (getTodo)')
  })

  it('reports a body missing a required field, or not of its schema', async () => {
    const { todoTitle: _, ...untitled } = TODO
    expect(await check('POST', '/api/v1/todos', response(201, untitled, CREATED))).toEqual([
      expect.stringMatching(/^body must have required property 'todoTitle'/),
    ])
    const wrong = { ...TODO, dueDate: '2026-02-30', finished: 'no', kind: 'other', extra: 1 }
    const violations = await check('GET', '/api/v1/todos/1', response(200, wrong, { etag: '"1"' }))
    expect(violations).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^body \/dueDate must match format "date"/),
        expect.stringMatching(/^body \/finished must be boolean/),
        expect.stringMatching(/^body \/kind must be equal to constant/),
        expect.stringMatching(/must NOT have additional properties \(extra\)/),
      ]),
    )
    const deep = { code: 'c', message: 'm', details: [{ code: 'c' }] }
    expect(await check('GET', '/api/v1/todos/1', response(404, deep))).toEqual([
      expect.stringMatching(/^body \/details\/0 must have required property 'message'/),
    ])
  })

  it('reports an undeclared ETag, and every service header sent but not declared', async () => {
    const item = '/api/v1/todos/1'
    expect(await check('GET', item, response(404, { code: 'c', message: 'm' }, CREATED))).toEqual([
      'the header etag is sent but not declared for 404',
      'the header location is sent but not declared for 404',
    ])
    const extra = { etag: '"1"', allow: 'GET', 'idempotent-replayed': 'true', 'cache-control': 'x' }
    expect(await check('GET', item, response(200, TODO, extra))).toEqual([
      'the header allow is sent but not declared for 200',
      'the header idempotent-replayed is sent but not declared for 200',
      'the header cache-control is sent but not declared for 200',
    ])
  })

  it('reports a required header missing, a declared one off its schema, X-Track undeclared', async () => {
    expect(await check('POST', '/api/v1/todos', response(201, TODO, { etag: '"1"' }))).toEqual([
      'the required header location is missing',
    ])
    const badLocation = { ...CREATED, location: '/elsewhere' }
    expect(await check('POST', '/api/v1/todos', response(201, TODO, badLocation))).toEqual([
      expect.stringMatching(/^header location must match pattern/),
    ])
    // X-Track is declared on some responses, so every response must declare it.
    const document = structuredClone(DOCUMENT)
    document.paths['/api/v1/todos/{todoId}'].delete.responses['204'].headers = {} as never
    const partial = await contractCheckerFor(document)
    expect(partial.check('DELETE', '/api/v1/todos/1', response(204, undefined))).toEqual([
      'the header x-track is sent but not declared for 204',
    ])
  })

  it('reports a wrong Content-Type, a missing body, and a body where none is documented', async () => {
    const item = '/api/v1/todos/1'
    const plain = {
      ...response(200, TODO, { etag: '"1"' }),
      headers: { 'x-track': 't', etag: '"1"' },
    }
    expect(await check('GET', item, { ...plain, headers: { ...plain.headers } })).toEqual([
      `Content-Type (none), not ${JSON_CONTENT_TYPE}`,
    ])
    const lower = response(200, TODO, { etag: '"1"', 'content-type': 'application/json' })
    expect(await check('GET', item, lower)).toEqual([
      `Content-Type application/json, not ${JSON_CONTENT_TYPE}`,
    ])
    const html = { ...response(200, undefined, { etag: '"1"' }), text: '<html>' }
    expect(await check('GET', item, html)).toEqual([
      `Content-Type (none), not ${JSON_CONTENT_TYPE}`,
      'the body is not JSON',
    ])
    expect(await check('GET', item, response(200, undefined, { etag: '"1"' }))).toEqual([
      `Content-Type (none), not ${JSON_CONTENT_TYPE}`,
      'no body, but the response documents content',
    ])
    expect(await check('DELETE', item, response(204, { gone: true }))).toEqual([
      'a body on a response that has none',
    ])
  })

  it('reports content documented for a response that never has a body', async () => {
    const document = structuredClone(DOCUMENT)
    const item: Record<string, unknown> = document.paths['/api/v1/todos/{todoId}']
    item.head = {
      operationId: 'headTodo',
      responses: document.paths['/api/v1/todos/{todoId}'].get.responses,
    }
    const withHead = await contractCheckerFor(document)
    expect(
      withHead.check('HEAD', '/api/v1/todos/1', response(200, undefined, { etag: '"1"' })),
    ).toEqual(['the 200 response documents content, but it never has a body'])
  })

  it('names method, path, status, the violations and the start of the body in its error', () => {
    const answer = { ...response(409, { code: 'c' }), text: `{"code":"${'x'.repeat(400)}"}` }
    const error = contractError('get', '/api/v1/todos/1?q=1', answer, ['one', 'two'])
    expect(error.message).toMatch(
      /^OpenAPI contract violated by GET \/api\/v1\/todos\/1\?q=1 -> 409:/,
    )
    expect(error.message).toContain('  - one\n  - two\n')
    expect(error.message).toContain(`body: {"code":"${'x'.repeat(291)}…`)
  })
})

describe('the contract check against the server document', () => {
  const suite = serverPerSuite(SQLITE_TARGET)
  const TODO_PATH = '/api/v1/todos/01a20114-a9e4-73d1-b63d-c583549b3710'

  it('passes what the server answers, and rejects hand-made drifts of it', async () => {
    const { server } = suite
    const created = await server.request('POST', '/api/v1/todos', {
      body: { todoTitle: 'Buy milk' },
    })
    expect(created.status).toBe(201)
    const missing = await server.request('GET', TODO_PATH)
    expect(missing.status).toBe(404)

    const checker = await contractCheckerFor(server.app.swagger())
    expect(checker.check('POST', '/api/v1/todos', created)).toEqual([])
    expect(checker.check('GET', TODO_PATH, missing)).toEqual([])

    // A wrong status.
    expect(checker.check('GET', TODO_PATH, { ...missing, status: 418 })).toEqual([
      expect.stringMatching(/^status 418 is not documented/),
    ])
    // A body missing a required field.
    const { code: _, ...uncoded } = missing.body as Record<string, unknown>
    const noCode = { ...missing, body: uncoded, text: JSON.stringify(uncoded) }
    expect(checker.check('GET', TODO_PATH, noCode)).toEqual([
      expect.stringMatching(/^body must have required property 'code'/),
    ])
    // An undeclared ETag.
    const tagged = { ...missing, headers: { ...missing.headers, etag: '"1"' } }
    expect(checker.check('GET', TODO_PATH, tagged)).toEqual([
      'the header etag is sent but not declared for 404',
    ])
  })

  it('leaves the hidden document route and unknown paths unchecked', async () => {
    const { server } = suite
    expect((await server.request('GET', '/api/v1/openapi.json')).status).toBe(200)
    expect((await server.request('GET', '/api/v1/nothing')).status).toBe(404)
  })
})
