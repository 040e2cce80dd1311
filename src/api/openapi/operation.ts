import type { RouteOptions } from 'fastify'
import { BEFORE_ROUTING_STATUSES } from '../errors/catalogue.js'
import { withPolicyAnswers } from '../errors/documented-answers.js'
import type { Scope } from '../route-policy/route-policy.js'
import {
  type HeaderDoc,
  REQUEST_HEADERS,
  RESPONSE_HEADERS,
  type ResponseHeaderName,
} from '../schemas/documented-headers.js'
import { publishSchema } from './published-schema.js'
import { withValidationExamples } from './validation-examples.js'

/*
 * How one route becomes one OpenAPI operation (@fastify/swagger's `transform`). The
 * route schema already says what is validated and answered; this adds what the
 * pipeline does around every route, from the route's own facts:
 *  - request schemas published as standard JSON Schema (published-schema.ts), and named
 *    schemas as references to their components;
 *  - the request headers the route reads: Accept-Language and X-Track everywhere,
 *    If-None-Match where it can answer 304, If-Match where 412, Idempotency-Key where
 *    `config.idempotent`;
 *  - the response headers: X-Track on every answer, Cache-Control where
 *    `config.noStore`, Allow on OPTIONS, Idempotent-Replayed on what a key can replay,
 *    and those the route declares itself (ETag, Location);
 *  - HEAD: GET's operation with `Head` appended to its id and no content in any answer.
 */

type Schema = Record<string, unknown>

interface RouteSchema extends Schema {
  readonly operationId?: string
  readonly tags?: readonly string[]
  readonly summary?: string
  readonly hide?: boolean
  readonly response?: Record<string, Schema>
}

interface Transformed {
  readonly schema: Schema
  readonly url: string
}

/** The statuses whose answer an Idempotency-Key replays: the creation and a refusal. */
const REPLAYABLE = new Set([201, 409])

function requestHeaders(route: RouteOptions, statuses: ReadonlySet<number>): Schema {
  const headers = [
    REQUEST_HEADERS.acceptLanguage,
    REQUEST_HEADERS.track,
    ...(statuses.has(304) ? [REQUEST_HEADERS.ifNoneMatch] : []),
    ...(statuses.has(412) ? [REQUEST_HEADERS.ifMatch] : []),
    ...(route.config?.idempotent === true ? [REQUEST_HEADERS.idempotencyKey] : []),
  ]
  return {
    type: 'object',
    properties: Object.fromEntries(
      headers.map(({ name, description, schema }) => [name, { ...schema, description }]),
    ),
  }
}

/** Header name -> schema with description; `required` is lifted out again by the document. */
function headerSchemas(names: readonly ResponseHeaderName[]): Schema {
  return Object.fromEntries(
    names.map((name) => {
      const doc: HeaderDoc = RESPONSE_HEADERS[name]
      return [
        name,
        { ...doc.schema, description: doc.description, ...(doc.required && { required: true }) },
      ]
    }),
  )
}

function responseHeaderNames(
  route: RouteOptions,
  status: number,
  declared: Schema | undefined,
): ResponseHeaderName[] {
  const names: ResponseHeaderName[] = ['X-Track']
  if (BEFORE_ROUTING_STATUSES.has(status)) return names
  for (const name of Object.keys(declared ?? {})) names.push(name as ResponseHeaderName)
  if (route.config?.noStore === true) names.push('Cache-Control')
  if (route.method === 'OPTIONS' && status === 200) names.push('Allow')
  if (route.config?.idempotent === true && REPLAYABLE.has(status)) {
    names.push('Idempotent-Replayed')
  }
  return names
}

/**
 * An answer in the document: its description, headers and content. Examples go on the
 * media type (`x-examples` of errorResponses), where generators and the docs page show
 * them by name; a `$ref` schema cannot carry them itself.
 */
function documentResponse(route: RouteOptions, status: number, response: Schema): Schema {
  const { headers: declared, description, 'x-examples': given, ...body } = response
  const headers = headerSchemas(responseHeaderNames(route, status, declared as Schema | undefined))
  if (route.method === 'HEAD' || body.type === 'null') return { type: 'null', description, headers }
  // A route that answers another media type (metrics' text) describes its content itself.
  if (body.content !== undefined) return { description, headers, content: body.content }
  const examples =
    given === undefined ? undefined : withValidationExamples(given as never, route.schema ?? {})
  const media = { schema: publishSchema(body), ...(examples !== undefined && { examples }) }
  return { description, headers, content: { 'application/json': media } }
}

/**
 * The `transform` of @fastify/swagger: one route's schema as its operation's, with the
 * answers its policy adds (route-policy.ts): with authentication on, an operation that
 * needs a scope names it (security) and lists the answers of authentication; with
 * RATE_LIMIT, 429; expensive work, 503; an Idempotency-Key, its refusals.
 */
export function operationDocumenter({
  authenticated,
  rateLimited,
  tags,
}: {
  authenticated: boolean
  rateLimited: boolean
  /** The document's tags: a route naming another is a resource left out of the list. */
  tags: ReadonlySet<string>
}) {
  return (input: { schema: RouteSchema | undefined; url: string; route: RouteOptions }) => {
    for (const tag of input.schema?.tags ?? []) {
      if (!tags.has(tag))
        throw new Error(`${input.url} names the tag ${tag}, which no resource declares`)
    }
    const declared = input.route.config?.scope
    const scope = authenticated && declared !== 'public' ? declared : undefined
    const limited = rateLimited && input.url.startsWith('/api/v1/')
    return documentOperation(input, { scope, limited })
  }
}

function documentOperation(
  {
    schema,
    url,
    route,
  }: {
    schema: RouteSchema | undefined
    url: string
    route: RouteOptions
  },
  { scope, limited }: { scope: Scope | undefined; limited: boolean },
): Transformed {
  if (!schema || schema.hide) return { schema: schema ?? { hide: true }, url }
  const responses = withPolicyAnswers(schema.response ?? {}, {
    scoped: scope !== undefined,
    limited,
    costly: route.config?.cost !== undefined,
    idempotent: route.config?.idempotent === true,
  }) as Record<string, Schema>
  const statuses = new Set(Object.keys(responses).map(Number))
  const isHead = route.method === 'HEAD'
  const published: Schema = { ...schema }
  for (const part of ['body', 'querystring', 'params'] as const) {
    if (schema[part] !== undefined) published[part] = publishSchema(schema[part])
  }
  published.headers = requestHeaders(route, statuses)
  if (scope !== undefined) published.security = [{ bearer: [scope] }]
  published.response = Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      documentResponse(route, Number(status), response),
    ]),
  )
  if (isHead && schema.operationId) {
    // @fastify/swagger has made GET's id unique with `-head`; a generated function
    // name wants `getMemberHead`.
    published.operationId = `${schema.operationId.replace(/-head$/, '')}Head`
    published.summary = `${schema.summary} Headers only.`
    published.description = `Answers as ${schema.operationId.replace(/-head$/, '')} does: the same status and headers, without a body.`
  }
  return { schema: published, url }
}
