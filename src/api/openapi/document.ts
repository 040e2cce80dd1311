import swagger from '@fastify/swagger'
import type { FastifyInstance } from 'fastify'
import type { PageFormat } from '../../config/settings.js'
import { ApiErrorSchema } from '../errors/api-error.js'
import { HealthSchema } from '../health/routes.js'
import { JSON_CONTENT_TYPE } from '../http/media-types.js'
import { SCOPES } from '../http/route-policy.js'
import { memberComponents } from '../member/schemas.js'
import { todoComponents } from '../todo/schemas.js'
import { operationDocumenter } from './operation.js'
import { publishComponents } from './published-schema.js'

export const OPENAPI_PATH = '/api/v1/openapi.json'

const DESCRIPTION = [
  'JSON resources under /api/v1: Todos and Members.',
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
const BEARER_SCHEME = {
  type: 'http' as const,
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description: `A JWT from the OpenID Connect provider (AUTH_ISSUER, AUTH_AUDIENCE). Scopes: ${Object.entries(
    SCOPES,
  )
    .map(([scope, meaning]) => `${scope}: ${meaning}`)
    .join(' ')}`,
}

/**
 * The OpenAPI 3.1 description, generated from the route schemas that validate requests
 * and serialize responses (so it cannot drift from the code): each route becomes an
 * operation by operation.ts, and every titled schema a named component. Must be set up
 * before the routes are registered; the document itself is served by serveOpenApi.
 */
export async function describeApi(
  app: FastifyInstance,
  version: string,
  pageFormat: PageFormat,
  { authenticated, rateLimited }: { authenticated: boolean; rateLimited: boolean },
): Promise<void> {
  app.addSchema(ApiErrorSchema)
  const roots = [...todoComponents(), ...memberComponents(pageFormat), HealthSchema]
  for (const [name, schema] of publishComponents(roots)) {
    app.addSchema({ ...(schema as object), $id: name })
  }
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Todo and Member API',
        version,
        description: `${DESCRIPTION} ${authenticated ? AUTHENTICATED : OPEN}`,
        // Not published under an open licence (package.json: private); SPDX's form for that.
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        contact: { name: 'Todo and Member API maintainers' },
      },
      // Relative: the document describes the server it is read from, whatever its host.
      servers: [{ url: '/', description: 'The server this document was read from.' }],
      security: [],
      ...(authenticated && { components: { securitySchemes: { bearer: BEARER_SCHEME } } }),
      tags: [
        { name: 'todos', description: 'Tasks with a title and a finished flag.' },
        { name: 'members', description: 'People with a credential; paged search.' },
        { name: 'operations', description: 'Health checks and metrics for operators.' },
      ],
    },
    exposeHeadRoutes: true,
    transform: operationDocumenter({ authenticated, rateLimited }) as never,
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
 * instead of serializing 140 KB anew for each (a client fetching it in a loop made that
 * garbage, and memory, grow with its pace).
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
