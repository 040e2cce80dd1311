/**
 * `npm start`: the server from its production build, built first only when a source is
 * newer than the build (scripts/build-inputs.mjs), so a restart serves at once. The
 * server runs in this process: no second Node starts, and signals reach it directly.
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { isStale, SERVER_BUILD, WEB_BUILD } from './build-inputs.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const halves = [
  ['server', SERVER_BUILD],
  ['web', WEB_BUILD],
].filter(([, build]) => isStale(root, build))

if (halves.length > 0) {
  const what = halves.length === 1 ? `${halves[0][0]} build is` : 'server and web builds are'
  console.error(`npm start: the ${what} older than their sources; building first`)
  // Both halves stale: one build without --only, as `npm run build` does.
  const only = halves.length === 1 ? [`--only=${halves[0][0]}`] : []
  const built = spawnSync(process.execPath, ['scripts/build.mjs', ...only], {
    cwd: root,
    stdio: 'inherit',
  })
  if (built.status !== 0) process.exit(built.status ?? 1)
}

await import('../dist/server.js')
