import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'

export const DOCS_PATH = '/api/docs'

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

/** Swagger UI on the OpenAPI document, at /api/docs. */
export async function serveDocsPage(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    staticCSP: DOCS_CSP,
    uiConfig: { docExpansion: 'list', tryItOutEnabled: true, displayRequestDuration: true },
    logLevel: 'warn',
  })
}
