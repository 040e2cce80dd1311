/**
 * `npm run build`: src/server.ts and everything it imports as one ES module,
 * dist/service.js (with a source map), loaded by dist/server.js, which `npm start` runs (it
 * turns source maps on first), and the SQLite reader
 * thread it starts, dist/sqlite-reader-worker.js; and the web app (web/,
 * by Vite) into dist/web, which that server serves at /. `--only=server` or `--only=web`
 * builds one of the two (the tests build the web app once for every suite).
 *
 * Why a bundle: resolving, reading and compiling hundreds of separate files was most of
 * the service's cold start; one file removes the resolution and file-system work. `tsc`
 * still type-checks everything (`npm run typecheck`); esbuild only strips the types.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { decode, encode } from '@jridgewell/sourcemap-codec'
import { build } from 'esbuild'

/**
 * Left as ordinary imports, resolved from node_modules at run time: native addons, and
 * packages that find their own files next to their code (pino's transport worker), which
 * a bundle would move away from them. The docs page is told where its files are.
 */
const EXTERNAL = [
  'better-sqlite3',
  'better-sqlite3-napi',
  '@node-rs/argon2',
  'pg-native',
  'pino',
  'pino-pretty',
  'thread-stream',
  // Loaded only when their feature is configured (authentication, rate limits, tracing).
  'jose',
  '@fastify/rate-limit',
  'ioredis',
  '@fastify/otel',
  '@opentelemetry/sdk-node',
  // One copy shared with the SDK, which registers the tracer that the service's spans use.
  '@opentelemetry/api',
]

const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length)
if (only !== undefined && only !== 'server' && only !== 'web') {
  throw new Error(`--only=${only}: must be server or web`)
}

/** Entry points and where each lands: the service, and the SQLite reader thread it starts. */
const SERVER_ENTRIES = {
  service: 'src/server.ts',
  // sqlite/reader-script.ts finds it beside the bundle.
  'sqlite-reader-worker': 'src/infra/db/sqlite/reader-worker.ts',
}

/**
 * dist/server.js, what `node dist/server.js` runs however it is started: source maps on
 * before the bundle loads (Node reads a module's map only if they are on when it
 * loads), so that every stack trace, a failed start's and every logged error's, names
 * the TypeScript sources (see ownSourcesOnly for the libraries' frames).
 */
const LOADER = `process.setSourceMapsEnabled(true)
await import('./service.js')
`

async function buildServer() {
  for (const name of ['server', ...Object.keys(SERVER_ENTRIES)]) {
    rmSync(`dist/${name}.js`, { force: true })
    rmSync(`dist/${name}.js.map`, { force: true })
  }
  await build({
    entryPoints: SERVER_ENTRIES,
    outdir: 'dist',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    // Stack traces need the mappings only; the sources themselves would be megabytes
    // more for Node to read and hold at every start.
    sourcesContent: false,
    minifyWhitespace: true,
    minifySyntax: true,
    external: EXTERNAL,
    // Bundled CommonJS packages call require(); an ES module has none of its own.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    logLevel: 'warning',
  })
  ownSourcesOnly('dist/service.js.map')
  writeFileSync('dist/server.js', LOADER)
}

/**
 * The bundle's map, cut down to the service's own sources. Node decodes a map whole the
 * first time a stack trace passes through its file (Node 20: the first logged error;
 * Node 24: at start) and keeps it: an entry per mapped position, most of them the
 * bundled libraries' (docs/performance.md, "Source maps of the service's own code
 * only"). A run of positions in a bundled library becomes one unmapped position, so its
 * frames name the bundle's line and column (with their function's name) instead of the
 * nearest source of ours.
 */
function ownSourcesOnly(mapFile) {
  const map = JSON.parse(readFileSync(mapFile, 'utf8'))
  const own = new Map()
  map.sources.forEach((source, index) => {
    if (!source.includes('node_modules/')) own.set(index, own.size)
  })
  const lines = decode(map.mappings).map((segments) => {
    const kept = []
    for (const [column, source, ...position] of segments) {
      const index = own.get(source)
      if (index !== undefined) kept.push([column, index, ...position])
      else if (kept.at(-1)?.length !== 1) kept.push([column])
    }
    return kept
  })
  map.sources = map.sources.filter((_source, index) => own.has(index))
  map.mappings = encode(lines)
  writeFileSync(mapFile, JSON.stringify(map))
}

/** Text files, also stored compressed: the server sends those to clients that take them. */
const COMPRESSIBLE = /\.(?:js|css|html|svg|json|map)$/

function precompress(directory) {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) precompress(path)
    else if (COMPRESSIBLE.test(entry.name)) {
      const content = readFileSync(path)
      writeFileSync(
        `${path}.br`,
        brotliCompressSync(content, {
          params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY },
        }),
      )
      writeFileSync(`${path}.gz`, gzipSync(content, { level: 9 }))
    }
  }
}

async function buildWebApp() {
  // Vite is loaded only here: the server's build and run never need it.
  const { build: viteBuild } = await import('vite')
  // Whoever runs the build (vitest sets NODE_ENV=test), the files served are production's.
  process.env.NODE_ENV = 'production'
  await viteBuild({ configFile: 'web/vite.config.ts', logLevel: 'warn' })
  precompress('dist/web')
}

if (only !== 'web') await buildServer()
if (only !== 'server') await buildWebApp()
