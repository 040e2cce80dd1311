/**
 * What each half of `npm run build` is made from, and whether its output is older than
 * any of it (as make decides): `npm start` (scripts/start.mjs) builds only then, and the
 * tests build the bundle they start the same way. Paths are from the repository's root.
 */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const COMMON = ['package.json', 'package-lock.json', 'scripts/build.mjs']

/** The server bundle: its output, written last by the build, and its inputs. */
export const SERVER_BUILD = { output: 'dist/server.js', inputs: ['src', ...COMMON] }

/** The web app (dist/web), a client of the API through the typed client. */
export const WEB_BUILD = {
  output: 'dist/web/index.html',
  inputs: ['web', 'clients/typescript/src', ...COMMON],
}

/** The newest modification under `path`: a file's, or a folder's own and its entries'. */
function newestChange(path) {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  // A folder's own time changes when an entry is added, removed or renamed.
  let newest = stat.mtimeMs
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestChange(join(path, entry)))
  return newest
}

/** Whether `build.output` under `root` is missing or older than any of its inputs. */
export function isStale(root, build) {
  const newestInput = Math.max(...build.inputs.map((input) => newestChange(join(root, input))))
  try {
    return statSync(join(root, build.output)).mtimeMs <= newestInput
  } catch {
    return true // not built yet
  }
}
