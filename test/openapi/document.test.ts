import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { Validator } from '@seriousme/openapi-schema-validator'
import { beforeAll, describe, expect, it } from 'vitest'
import { JSON_TYPE } from '../helpers/api-errors.js'
import { SQLITE_TARGET } from '../helpers/databases.js'
import type { HttpOptions } from '../helpers/http.js'
import { MEMBER_KEYS } from '../helpers/members.js'
import {
  COMPONENT_REF,
  type MediaType,
  OPENAPI_PATH,
  type OpenApiDocument,
  operation,
  operationKey,
  operationsOf,
  resolved,
  type Schema,
  schemaValidator,
} from '../helpers/openapi-document.js'
import { WEB_APP_DIR } from '../helpers/process.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * The OpenAPI document at GET /api/v1/openapi.json, read over real HTTP and held to
 * what the server really does: every served route and no other, every status a route
 * answers, and examples that satisfy their own schemas.
 */

const DOCS_PATH = '/api/docs'
const API_ERROR_REF = `${COMPONENT_REF}ApiError`
/** A small body limit, so that an oversized body is cheap to send. */
const BODY_LIMIT = 1024

const TODO_KEYS = ['todoId', 'todoTitle', 'finished', 'createdAt']

/** `/api/v1/todos/:todoId` as OpenAPI writes it: `/api/v1/todos/{todoId}`. */
const openApiPath = (routeUrl: string) => routeUrl.replace(/:(\w+)/g, '{$1}')

/** A file of the web app (dist/web), served at / beside the API and not part of it. */
const isWebAppFile = (routeUrl: string) =>
  !routeUrl.startsWith('/api/') &&
  existsSync(join(WEB_APP_DIR, routeUrl === '/' ? 'index.html' : routeUrl))

/** Routes the server serves that the document leaves out: it describes the API only. */
const isDocumentationMachinery = (routeUrl: string) =>
  routeUrl === OPENAPI_PATH ||
  routeUrl === DOCS_PATH ||
  routeUrl.startsWith(`${DOCS_PATH}/`) ||
  isWebAppFile(routeUrl)

const apiOperations = (document: OpenApiDocument) =>
  operationsOf(document).filter(({ path }) => path.startsWith('/api/v1/'))

interface ExampleCase {
  readonly where: string
  readonly schema: Schema
  readonly example: unknown
}

/** Every example in the document with the schema it illustrates. */
function examplesOf(document: OpenApiDocument): ExampleCase[] {
  const cases: ExampleCase[] = []
  const inSchema = (node: unknown, where: string) => {
    if (node === null || typeof node !== 'object') return
    const schema = node as Schema
    if (Array.isArray(schema.examples)) {
      for (const example of schema.examples) cases.push({ where, schema, example })
    }
    for (const [key, child] of Object.entries(node)) {
      if (key !== 'examples') inSchema(child, `${where}/${key}`)
    }
  }
  const inDocument = (node: unknown, where: string) => {
    if (node === null || typeof node !== 'object') return
    const media = node as MediaType
    if (media.schema) {
      if (media.example !== undefined) {
        cases.push({ where: `${where}/example`, schema: media.schema, example: media.example })
      }
      inSchema(media.schema, `${where}/schema`)
    }
    for (const [key, child] of Object.entries(node)) {
      if (key !== 'schema') inDocument(child, `${where}/${key}`)
    }
  }
  inDocument(document.paths, '#/paths')
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    inSchema(schema, `#/components/schemas/${name}`)
  }
  return cases
}

describe('OpenAPI document on sqlite', () => {
  const suite = serverPerSuite(SQLITE_TARGET, { BODY_LIMIT: String(BODY_LIMIT) })
  let document: OpenApiDocument

  beforeAll(async () => {
    document = (await suite.server.request('GET', OPENAPI_PATH)).body as OpenApiDocument
  })

  let memberCount = 0
  const memberProfile = () => {
    memberCount += 1
    return {
      firstName: 'Taro',
      lastName: 'Yamada',
      genderCode: '1',
      dateOfBirth: '1990-04-01',
      emailAddress: `taro.${memberCount}@example.com`,
    }
  }
  /** A body each operation accepts (none for those that take no body). */
  const VALID_BODIES: Record<string, (id: string) => unknown> = {
    'POST /api/v1/todos': () => ({ todoTitle: 'Probe' }),
    'POST /api/v1/members': () => ({
      ...memberProfile(),
      credential: { password: 'correct-horse' },
    }),
    'PUT /api/v1/members/{memberId}': (memberId) => ({ memberId, ...memberProfile() }),
  }

  async function createTodo(todoTitle = 'Documented'): Promise<string> {
    const response = await suite.server.request('POST', '/api/v1/todos', { body: { todoTitle } })
    expect(response.status).toBe(201)
    return (response.body as { todoId: string }).todoId
  }
  async function createMember(): Promise<string> {
    const body = VALID_BODIES['POST /api/v1/members']?.('')
    const response = await suite.server.request('POST', '/api/v1/members', { body })
    expect(response.status).toBe(201)
    return (response.body as { memberId: string }).memberId
  }
  const RESOURCE_FACTORIES: Record<string, () => Promise<string>> = {
    todoId: () => createTodo(),
    memberId: createMember,
  }

  it('serves the document: 200, the exact JSON Content-Type, OpenAPI 3.1.0', async () => {
    const response = await suite.server.request('GET', OPENAPI_PATH)
    expect(response.status).toBe(200)
    expect(response.headers['content-type']).toBe(JSON_TYPE)
    expect((response.body as OpenApiDocument).openapi).toBe('3.1.0')
  })

  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    const result = await new Validator().validate(
      structuredClone(document) as unknown as Record<string, unknown>,
    )
    expect(result.valid, JSON.stringify(result.errors, null, 2)).toBe(true)
  })

  it('lists every route and method the server serves, and no other', () => {
    const served = [...suite.server.app.servedRoutes()]
      .filter(([routeUrl]) => !isDocumentationMachinery(routeUrl))
      .flatMap(([routeUrl, methods]) =>
        [...methods].map((method) => operationKey({ method, path: openApiPath(routeUrl) })),
      )
    const documented = operationsOf(document).map(operationKey)
    expect(documented.sort()).toEqual(served.sort())
    // Neither set is trivially empty: the resources and the health checks are there.
    expect(documented).toContain('GET /api/v1/todos/{todoId}')
    expect(documented).toContain('GET /health/ready')
  })

  it('gives every operation a summary and tags the document declares', () => {
    const declared = (document.tags ?? []).map((tag) => tag.name)
    for (const { method, path, operation } of operationsOf(document)) {
      const where = operationKey({ method, path })
      expect(operation.summary, where).toMatch(/\S/)
      expect(operation.tags, where).toEqual(expect.arrayContaining([expect.any(String)]))
      for (const tag of operation.tags ?? []) expect(declared, where).toContain(tag)
    }
  })

  it('documents every status each route answers to a set of probe requests', async () => {
    const probes: readonly { readonly name: string; readonly options: HttpOptions }[] = [
      { name: 'no headers', options: {} },
      { name: 'a valid body', options: {} },
      { name: 'Accept: text/plain', options: { headers: { accept: 'text/plain' } } },
      {
        name: 'a text/plain body',
        options: { headers: { 'content-type': 'text/plain' }, body: 'x' },
      },
      {
        name: 'malformed JSON',
        options: { headers: { 'content-type': 'application/json' }, body: '{' },
      },
      { name: 'an empty JSON object', options: { body: {} } },
      {
        name: 'a body over the limit',
        options: {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify('x'.repeat(BODY_LIMIT)),
        },
      },
      { name: 'a stale If-Match', options: { headers: { 'if-match': '"999"' } } },
      { name: 'If-None-Match: *', options: { headers: { 'if-none-match': '*' } } },
    ]
    const served = [...suite.server.app.servedRoutes()].filter(
      ([routeUrl]) => !isDocumentationMachinery(routeUrl),
    )
    const undocumented = new Map<string, string>()
    const seen = new Set<string>()
    for (const [routeUrl, methods] of served) {
      const path = openApiPath(routeUrl)
      const param = /:(\w+)/.exec(routeUrl)?.[1]
      for (const method of methods) {
        const documented = Object.keys(
          document.paths[path]?.[method.toLowerCase()]?.responses ?? {},
        )
        for (const probe of probes) {
          const ids = param ? [await (RESOURCE_FACTORIES[param] as () => Promise<string>)()] : ['']
          if (param) ids.push('no-such-id')
          for (const id of ids) {
            for (const query of ['', '?name=Ta']) {
              const url = `${routeUrl.replace(`:${param}`, id)}${query}`
              const validBody = VALID_BODIES[operationKey({ method, path })]
              const options =
                probe.name === 'a valid body' && validBody ? { body: validBody(id) } : probe.options
              const { status } = await suite.server.request(method, url, options)
              const key = `${method} ${path}: ${status}`
              seen.add(key)
              if (!documented.includes(String(status)) && !undocumented.has(key)) {
                undocumented.set(key, `${key} (${probe.name}, ${method} ${url})`)
              }
            }
          }
        }
      }
    }
    // The probes reach the failures they are meant to, so an empty list means something.
    expect([...seen]).toEqual(
      expect.arrayContaining([
        'POST /api/v1/todos: 201',
        'POST /api/v1/todos: 400',
        'POST /api/v1/todos: 413',
        'POST /api/v1/todos: 415',
        'GET /api/v1/todos: 406',
        'GET /api/v1/todos/{todoId}: 304',
        'GET /api/v1/todos/{todoId}: 404',
        'DELETE /api/v1/members/{memberId}: 412',
        'GET /api/v1/members: 200',
        'GET /api/v1/members: 400',
        'POST /api/v1/members: 201',
        'PUT /api/v1/members/{memberId}: 200',
      ]),
    )
    expect([...undocumented.values()]).toEqual([])
  }, 60_000)

  it('lists 406 and 500 ApiError responses on every API operation, and only ApiError failures', () => {
    const operations = apiOperations(document)
    expect(operations.length).toBeGreaterThan(0)
    for (const { method, path, operation } of operations) {
      const where = operationKey({ method, path })
      expect(Object.keys(operation.responses), where).toEqual(
        expect.arrayContaining(['406', '500']),
      )
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue
        if (method === 'head') {
          expect(response.content, `${where} ${status} has no content`).toBeUndefined()
          continue
        }
        expect(Object.keys(response.content ?? {}), `${where} ${status}`).toEqual([
          'application/json',
        ])
        expect(response.content?.['application/json']?.schema).toEqual({ $ref: API_ERROR_REF })
      }
    }
  })

  it('defines ApiError: code, message, target, details (of ApiError); code and message required', () => {
    const apiError = document.components.schemas.ApiError
    expect(apiError?.type).toBe('object')
    expect(Object.keys(apiError?.properties ?? {})).toEqual([
      'code',
      'message',
      'target',
      'details',
    ])
    expect(apiError?.properties?.code?.type).toBe('string')
    expect(apiError?.properties?.message?.type).toBe('string')
    expect(apiError?.properties?.target?.type).toBe('string')
    expect(apiError?.properties?.details).toMatchObject({
      type: 'array',
      items: { $ref: API_ERROR_REF },
    })
    expect([...(apiError?.required ?? [])].sort()).toEqual(['code', 'message'])
  })

  it('documents each path parameter as a required string in the path', () => {
    const parameterNames = new Set<string>()
    for (const { method, path, operation } of operationsOf(document)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string)
      const inPath = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path')
      expect(
        inPath.map(({ name, required, schema }) => ({ name, required, type: schema?.type })),
        operationKey({ method, path }),
      ).toEqual(names.map((name) => ({ name, required: true, type: 'string' })))
      for (const name of names) parameterNames.add(name)
    }
    expect([...parameterNames].sort()).toEqual(['memberId', 'todoId'])
  })

  it('documents the member search query parameters: name, page, size, sort, unpaged', () => {
    for (const method of ['get', 'head']) {
      const parameters = operation(document, method, '/api/v1/members').parameters ?? []
      expect(
        parameters
          .filter((parameter) => parameter.in === 'query')
          .map((parameter) => parameter.name)
          .sort(),
      ).toEqual(['name', 'page', 'size', 'sort', 'unpaged'])
    }
  })

  it('marks as required exactly the search parameters the server requires', async () => {
    // What the server does: without name 400; with name alone (page, size, sort, unpaged
    // left to their defaults) 200.
    expect((await suite.server.request('GET', '/api/v1/members')).status).toBe(400)
    expect((await suite.server.request('GET', '/api/v1/members?name=Ta')).status).toBe(200)
    const parameters = (operation(document, 'get', '/api/v1/members').parameters ?? []).filter(
      (parameter) => parameter.in === 'query',
    )
    expect(
      Object.fromEntries(parameters.map((parameter) => [parameter.name, !!parameter.required])),
    ).toEqual({ name: true, page: false, size: false, sort: false, unpaged: false })
  })

  it('describes the JSON request bodies of POST todos, POST and PUT members, with an example', () => {
    for (const [method, path] of [
      ['post', '/api/v1/todos'],
      ['post', '/api/v1/members'],
      ['put', '/api/v1/members/{memberId}'],
    ] as const) {
      const where = operationKey({ method, path })
      const body = operation(document, method, path).requestBody
      expect(body?.required, where).toBe(true)
      expect(Object.keys(body?.content ?? {}), where).toEqual(['application/json'])
      const media = body?.content['application/json'] as MediaType
      const schema = resolved(document, media.schema)
      expect(schema.type, where).toBe('object')
      expect(schema.examples, `${where} has an example`).not.toEqual([])
    }
  })

  it('answers the Todo and Member components, with exactly their keys, all required', () => {
    const resources = [
      { get: '/api/v1/todos/{todoId}', create: '/api/v1/todos', name: 'Todo', keys: TODO_KEYS },
      {
        get: '/api/v1/members/{memberId}',
        create: '/api/v1/members',
        name: 'Member',
        keys: MEMBER_KEYS,
      },
    ]
    for (const { get, create, name, keys } of resources) {
      const responses = [
        operation(document, 'get', get).responses['200'],
        operation(document, 'post', create).responses['201'],
      ]
      for (const response of responses) {
        const media = response?.content?.['application/json'] as MediaType
        expect(media.schema).toEqual({ $ref: `#/components/schemas/${name}` })
      }
      const component = document.components.schemas[name] as Schema
      expect(Object.keys(component.properties ?? {})).toEqual(keys)
      expect([...(component.required ?? [])].sort()).toEqual([...keys].sort())
    }
    const todoExamples = document.components.schemas.Todo?.examples ?? []
    expect(todoExamples.length).toBeGreaterThan(0)
    for (const example of todoExamples) expect(Object.keys(example as object)).toEqual(TODO_KEYS)
  })

  it('has every example valid against the schema it illustrates (JSON Schema 2020-12)', () => {
    const compile = schemaValidator(document)
    const cases = examplesOf(document)
    expect(cases.length).toBeGreaterThan(5)
    const invalid = cases.flatMap(({ where, schema, example }) => {
      const validate = compile(schema)
      return validate(example)
        ? []
        : [`${where}: ${(validate.errors ?? []).map((error) => error.message).join('; ')}`]
    })
    expect(invalid).toEqual([])
  })

  it('describes the 201 of POST /todos as the Todo, which is what the server answers', async () => {
    const created = operation(document, 'post', '/api/v1/todos').responses['201']
    const schema = resolved(document, created?.content?.['application/json']?.schema)
    expect(Object.keys(schema.properties ?? {})).toEqual(TODO_KEYS)
    expect([...(schema.required ?? [])].sort()).toEqual([...TODO_KEYS].sort())

    const compile = schemaValidator(document)
    const response = await suite.server.request('POST', '/api/v1/todos', {
      body: { todoTitle: 'Cross-checked' },
    })
    expect(response.status).toBe(201)
    const validateTodo = compile(schema)
    expect(validateTodo(response.body), JSON.stringify(validateTodo.errors)).toBe(true)

    const failure = await suite.server.request('GET', '/api/v1/todos', {
      headers: { accept: 'text/plain' },
    })
    expect(failure.status).toBe(406)
    const validateError = compile({ $ref: API_ERROR_REF })
    expect(validateError(failure.body), JSON.stringify(validateError.errors)).toBe(true)
  })
})
