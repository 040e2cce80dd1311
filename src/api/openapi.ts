import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { ApiErrorSchema } from './common/responses.js'
import { IDEMPOTENCY_KEY_PARAMETER } from './http/idempotency.js'
import { KEYWORD } from './validation/keywords.js'

export const OPENAPI_PATH = '/api/v1/openapi.json'
export const DOCS_PATH = '/api/docs'

/**
 * The OpenAPI 3.1 document, generated from the route schemas that validate requests
 * and serialize responses (so it cannot drift from the code). Must be set up before
 * the routes are registered; the document itself is served by serveOpenApi.
 */
export async function describeApi(app: FastifyInstance, version: string): Promise<void> {
  app.addSchema(ApiErrorSchema)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Todo and Member API',
        version,
        description:
          'JSON resources under /api/v1. Every response carries X-Track (the request id) and ' +
          'every failure an ApiError body. A path that exists answers 405 e.ex.fw.6001 with Allow ' +
          'for a method it does not serve. Messages follow Accept-Language (en, ja).',
      },
      tags: [
        { name: 'todos', description: 'Tasks with a title and a finished flag.' },
        { name: 'members', description: 'People with a credential; paged search.' },
        { name: 'operations', description: 'Health checks and metrics for operators.' },
      ],
    },
    exposeHeadRoutes: true,
    transformObject: (document) =>
      withIdempotencyKeys(
        defaultsAreOptional(
          'openapiObject' in document ? document.openapiObject : document.swaggerObject,
        ),
      ),
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, index) => String(json.$id ?? `def-${index}`),
    },
  })
}

/** Every POST takes an optional Idempotency-Key header. */
function withIdempotencyKeys<T>(document: T): T {
  const paths = (document as { paths?: Record<string, Record<string, { parameters?: unknown[] }>> })
    .paths
  for (const operations of Object.values(paths ?? {})) {
    const post = operations.post
    if (post) post.parameters = [...(post.parameters ?? []), IDEMPOTENCY_KEY_PARAMETER]
  }
  return document
}

/** A field with a default may be omitted, unless NotNull/NotEmpty forbid the null it defaults to. */
function isOptional(schema: Record<string, unknown> | undefined): boolean {
  return schema?.default !== undefined && !schema[KEYWORD.notNull] && !schema[KEYWORD.notEmpty]
}

/**
 * The server fills in an omitted field (null for an input field, 0/20/[]/false for the
 * search parameters). TypeBox lists such fields as required, which is harmless for
 * validation but wrong for a client reading the document.
 */
function defaultsAreOptional<T>(node: T): T {
  if (Array.isArray(node)) {
    for (const item of node) defaultsAreOptional(item)
    return node
  }
  if (typeof node !== 'object' || node === null) return node
  const record = node as Record<string, unknown>
  const properties = record.properties as Record<string, Record<string, unknown>> | undefined
  if (properties && Array.isArray(record.required)) {
    record.required = record.required.filter((name: string) => !isOptional(properties[name]))
  }
  const schema = record.schema as Record<string, unknown> | undefined
  if (typeof record.in === 'string' && record.in !== 'path' && isOptional(schema)) {
    record.required = false
  }
  for (const value of Object.values(record)) defaultsAreOptional(value)
  return node
}

/** GET /api/v1/openapi.json (inside the API's JSON context) and the Swagger UI docs page. */
export function serveOpenApi(api: FastifyInstance): void {
  api.get('/openapi.json', { schema: { hide: true } }, async () => api.swagger())
}

/**
 * The docs page loads only its own files (no CDN, no inline script) and calls only this
 * API. Swagger UI writes some inline styles at run time, so styles (not scripts) may be
 * inline.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "base-uri 'self'",
  "object-src 'none'",
  "frame-ancestors 'self'",
  "form-action 'self'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
].join('; ')

export async function serveDocsPage(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    staticCSP: DOCS_CSP,
    uiConfig: { docExpansion: 'list', tryItOutEnabled: true, displayRequestDuration: true },
    logLevel: 'warn',
  })
}
