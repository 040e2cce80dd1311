import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import nodeModule from 'node:module'
import { fileURLToPath } from 'node:url'

/** The build script's entries for the reader thread (scripts/build.mjs bundles it beside the server). */
const BUILT = './sqlite-reader-worker.js'
const SOURCE = './reader-worker.ts'

let fromSource: URL | undefined

/**
 * The reader thread's script. Built, it sits beside the bundle. From the TypeScript
 * sources (tests, `npm run dev`) it is bundled once per process with esbuild, the build's
 * own tool, into node_modules/.cache, where its packages resolve: a thread does not
 * inherit the TypeScript loader of the process that runs the sources, and loading one in
 * every thread took four times as long as the thread's own start.
 */
export function readerScript(): URL {
  if (!import.meta.url.endsWith('.ts')) return new URL(BUILT, import.meta.url)
  fromSource ??= bundledFromSource()
  return fromSource
}

function bundledFromSource(): URL {
  const esbuild = nodeModule.createRequire(import.meta.url)('esbuild') as typeof import('esbuild')
  const { outputFiles } = esbuild.buildSync({
    entryPoints: [fileURLToPath(new URL(SOURCE, import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
  })
  const code = outputFiles[0]?.text ?? ''
  const directory = fileURLToPath(
    new URL('../../../../node_modules/.cache/todo-member-api/', import.meta.url),
  )
  const file = `${directory}sqlite-reader-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`
  if (!existsSync(file)) {
    mkdirSync(directory, { recursive: true })
    // Processes starting together write the same text; each renames its own copy into place.
    const own = `${file}.${process.pid}`
    writeFileSync(own, code)
    renameSync(own, file)
  }
  return new URL(`file://${file}`)
}
