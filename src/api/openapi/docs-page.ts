import { readFile } from 'node:fs/promises'
import module from 'node:module'
import { dirname, join } from 'node:path'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { answerStaticFileRefusals } from '../web/static-file-refusals.js'

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

/**
 * Swagger UI's files, where the package is installed. The plugin finds them next to its
 * own code unless told; told, it can be part of the bundle, which saves loading it and
 * the packages it needs (yaml, @fastify/static, glob) from node_modules a second time at
 * every start, which lengthened the cold start.
 */
function swaggerUiFiles(): string {
  const installed = module
    .createRequire(import.meta.url)
    .resolve('@fastify/swagger-ui/package.json')
  return join(dirname(installed), 'static')
}

/** Swagger UI on the OpenAPI document, at /api/docs. */
export async function serveDocsPage(app: FastifyInstance): Promise<void> {
  const files = swaggerUiFiles()
  const logo = await readFile(join(files, 'logo.svg'))
  await app.register(async (docs) => {
    answerStaticFileRefusals(docs)
    await docs.register(swaggerUi, {
      routePrefix: DOCS_PATH,
      baseDir: files,
      logo: { type: 'image/svg+xml', content: logo },
      staticCSP: DOCS_CSP,
      uiConfig: { docExpansion: 'list', tryItOutEnabled: true, displayRequestDuration: true },
      logLevel: 'warn',
    })
  })
}
