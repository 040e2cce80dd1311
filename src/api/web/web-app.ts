import { existsSync } from 'node:fs'
import { join } from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import { answerStaticFileRefusals } from './static-file-refusals.js'

/**
 * The web app's page loads only its own files (no CDN, no inline script or style) and
 * calls only this service.
 */
export const WEB_APP_CSP = [
  "default-src 'self'",
  "base-uri 'none'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
].join('; ')

/** File names under assets/ carry a hash of their content: one name, one content, forever. */
const IMMUTABLE = 'public, max-age=31536000, immutable'
/** The page and the files named without a hash: always revalidated (ETag, Last-Modified). */
const REVALIDATE = 'no-cache'

/**
 * The web app (web/, built into `root` by `npm run build`) at `/`: the page at `/` and
 * `/index.html`, each file at its path, GET and HEAD only. Every other path stays the
 * API's 404. Files are sent precompressed (.br, .gz beside them) when the client takes it.
 */
export async function serveWebApp(app: FastifyInstance, root: string): Promise<void> {
  if (!existsSync(join(root, 'index.html'))) {
    app.log.warn({ root }, 'the web app is not built (npm run build): / answers 404')
    return
  }
  const assets = join(root, 'assets')
  await app.register(async (web) => {
    answerStaticFileRefusals(web)
    await web.register(fastifyStatic, {
      root,
      prefix: '/',
      // One route per file found at start, so unknown paths reach the API's not-found answer.
      wildcard: false,
      index: ['index.html'],
      redirect: false,
      decorateReply: false,
      preCompressed: true,
      globIgnore: ['**/*.br', '**/*.gz'],
      cacheControl: false,
      // The files are small; a Range is ignored (a 200 of the whole), never refused.
      acceptRanges: false,
      serveDotFiles: false,
      setHeaders: (reply, path) => {
        reply.headers({
          'cache-control': path.startsWith(assets) ? IMMUTABLE : REVALIDATE,
          'content-security-policy': WEB_APP_CSP,
          'referrer-policy': 'no-referrer',
          'cross-origin-opener-policy': 'same-origin',
        })
      },
    })
  })
}
