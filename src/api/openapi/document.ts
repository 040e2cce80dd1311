import swagger from '@fastify/swagger'
import type { FastifyInstance } from 'fastify'
import type { TSchema } from 'typebox'
import { ApiErrorSchema } from '../errors/api-error.js'
import { HealthSchema } from '../health/routes.js'
import { JSON_CONTENT_TYPE } from '../request/media-types.js'
import { operationDocumenter } from './operation.js'
import { publishComponents } from './published-schema.js'

export const OPENAPI_PATH = '/api/v1/openapi.json'

/** `Todos and Members`, from the resources' tags. */
function resourceNames(tags: readonly { readonly name: string }[]): string {
  const names = tags.map(({ name }) => `${name.charAt(0).toUpperCase()}${name.slice(1)}`)
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
}

const CONVENTIONS = [
  'Every response carries X-Track (the request id); every failure answers an ApiError body',
  'with `Content-Type: application/json;charset=UTF-8`, and its message follows',
  'Accept-Language (en, ja). A path that exists answers 405 e.ex.fw.6001 with Allow for a',
  'method it does not serve; a path that does not exist, 404 e.ex.fw.5001.',
].join(' ')

const OPEN = 'No authentication is needed.'
const AUTHENTICATED = [
  'Operations on todos and members need `Authorization: Bearer <JWT>` from the OpenID',
  'Connect provider, with the scope each operation names (security); without a valid',
  'token 401 e.ex.fw.6004, without the scope 403 e.ex.fw.6005.',
].join(' ')

/** The bearer scheme, with the scopes operations name. */
function bearerScheme(scopes: Readonly<Record<string, string>>) {
  const granted = Object.entries(scopes).map(([scope, meaning]) => `${scope}: ${meaning}`)
  return {
    type: 'http' as const,
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: `A JWT from the OpenID Connect provider (AUTH_ISSUER, AUTH_AUDIENCE). Scopes: ${granted.join(' ')}`,
  }
}

/** What one resource puts in the document (platform/resource-module.ts). */
export interface DescribedResource {
  readonly tag: { readonly name: string; readonly description: string }
  readonly scopes: Readonly<Record<string, string>>
  /** The schemas named as components. */
  readonly schemas: readonly TSchema[]
}

export interface ApiDescription {
  readonly version: string
  readonly authenticated: boolean
  readonly rateLimited: boolean
  readonly resources: readonly DescribedResource[]
}

/** The operators' tag: health checks and metrics. */
const OPERATIONS_TAG = {
  name: 'operations',
  description: 'Health checks and metrics for operators.',
}

/**
 * The OpenAPI 3.1 description, generated from the route schemas that validate requests
 * and serialize responses (so it cannot drift from the code): each route becomes an
 * operation by operation.ts, and every titled schema a named component. Must be set up
 * before the routes are registered; the document itself is served by serveOpenApi.
 */
export async function describeApi(
  app: FastifyInstance,
  { version, authenticated, rateLimited, resources }: ApiDescription,
): Promise<void> {
  app.addSchema(ApiErrorSchema)
  const roots = [...resources.flatMap((resource) => resource.schemas), HealthSchema]
  const tags = [...resources.map((resource) => resource.tag), OPERATIONS_TAG]
  const scopes = Object.assign({}, ...resources.map((resource) => resource.scopes))
  for (const [name, schema] of publishComponents(roots)) {
    app.addSchema({ ...(schema as object), $id: name })
  }
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Todo and Member API',
        version,
        description: `JSON resources under /api/v1: ${resourceNames(resources.map(({ tag }) => tag))}. ${CONVENTIONS} ${authenticated ? AUTHENTICATED : OPEN}`,
        // Not published under an open licence (package.json: private); SPDX's form for that.
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        contact: { name: 'Todo and Member API maintainers' },
      },
      // Relative: the document describes the server it is read from, whatever its host.
      servers: [{ url: '/', description: 'The server this document was read from.' }],
      security: [],
      ...(authenticated && {
        components: { securitySchemes: { bearer: bearerScheme(scopes) } },
      }),
      tags,
    },
    exposeHeadRoutes: true,
    transform: operationDocumenter({
      authenticated,
      rateLimited,
      tags: new Set(tags.map(({ name }) => name)),
    }) as never,
    transformObject: (document) =>
      withRequiredHeaders(
        'openapiObject' in document ? document.openapiObject : document.swaggerObject,
      ),
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, index) => String(json.$id ?? `def-${index}`),
    },
  })
}

type Node = Record<string, unknown>

/**
 * @fastify/swagger puts everything of a response header but its description into the
 * header's schema; `required` belongs to the header itself.
 */
function withRequiredHeaders<T>(document: T): T {
  const paths = (document as { paths?: Record<string, Record<string, Node>> }).paths ?? {}
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      for (const response of Object.values((operation.responses ?? {}) as Record<string, Node>)) {
        for (const header of Object.values((response.headers ?? {}) as Record<string, Node>)) {
          const schema = header.schema as Node
          if (schema.required === true) {
            delete schema.required
            header.required = true
          }
        }
      }
    }
  }
  return document
}

/**
 * GET /api/v1/openapi.json, inside the API's JSON context. The document never changes
 * while the server runs: it is written out once, and every answer sends those bytes,
 * instead of serializing the whole document anew for each (a client fetching it in a
 * loop made that garbage, and memory, grow with its pace).
 */
export function serveOpenApi(api: FastifyInstance): void {
  let bytes: Buffer | undefined
  api.get(
    '/openapi.json',
    { schema: { hide: true }, config: { scope: 'public' } },
    async (_request, reply) => {
      bytes ??= Buffer.from(JSON.stringify(api.swagger()))
      return reply.type(JSON_CONTENT_TYPE).send(bytes)
    },
  )
}
