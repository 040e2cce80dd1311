/**
 * `npm run build`: src/server.ts and everything it imports as one ES module,
 * dist/server.js (with a source map), which `npm start` runs.
 *
 * Why a bundle: resolving, reading and compiling some 400 separate files was most of the
 * service's cold start (about 600 ms against 150 ms for a bare Fastify server); one file
 * removes the resolution and file-system work. `tsc` still type-checks everything
 * (`npm run typecheck`); esbuild only strips the types.
 */
import { rmSync } from 'node:fs'
import { build } from 'esbuild'

/**
 * Left as ordinary imports, resolved from node_modules at run time: native addons, and
 * packages that find their own files next to their code (pino's transport worker, the
 * docs page's static files), which a bundle would move away from them.
 */
const EXTERNAL = [
  'better-sqlite3',
  'better-sqlite3-napi',
  '@node-rs/argon2',
  'pg-native',
  'pino',
  'pino-pretty',
  'thread-stream',
  '@fastify/swagger-ui',
  // Loaded only when their feature is configured (authentication, rate limits, tracing).
  'jose',
  '@fastify/rate-limit',
  'ioredis',
  '@fastify/otel',
  '@opentelemetry/sdk-node',
  // One copy shared with the SDK, which registers the tracer that the service's spans use.
  '@opentelemetry/api',
]

rmSync('dist', { recursive: true, force: true })
await build({
  entryPoints: ['src/server.ts'],
  outfile: 'dist/server.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  minifyWhitespace: true,
  minifySyntax: true,
  external: EXTERNAL,
  // Bundled CommonJS packages call require(); an ES module has none of its own.
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
  logLevel: 'warning',
})
