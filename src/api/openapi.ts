import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { ApiErrorSchema } from './common/responses.js'

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
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, index) => String(json.$id ?? `def-${index}`),
    },
  })
}

/** GET /api/v1/openapi.json (inside the API's JSON context) and the Swagger UI docs page. */
export function serveOpenApi(api: FastifyInstance): void {
  api.get('/openapi.json', { schema: { hide: true } }, async () => api.swagger())
}

export async function serveDocsPage(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    uiConfig: { docExpansion: 'list', tryItOutEnabled: true, displayRequestDuration: true },
    logLevel: 'warn',
  })
}
