#!/usr/bin/env node
// The installed packages whose install scripts run, one name a line, for `npm rebuild`
// after an `npm ci --ignore-scripts`: those the lockfile marks as having one, less those
// package.json's allowScripts refuses (as npm 12 does), less what the arguments leave out:
//   --omit=dev      only production dependencies (the image)
//   --except=NAME   not this package (built another way, or not used)
// .ci/npm-ci.sh and the Dockerfile's dependency stage run it.
import { readFileSync } from 'node:fs'

const args = process.argv.slice(2)
const omitDev = args.includes('--omit=dev')
const except = new Set(args.flatMap((arg) => (arg.startsWith('--except=') ? [arg.slice(9)] : [])))
const { allowScripts = {} } = JSON.parse(readFileSync('package.json', 'utf8'))
const { packages } = JSON.parse(readFileSync('package-lock.json', 'utf8'))
for (const [path, entry] of Object.entries(packages)) {
  const name = path.replace(/^.*node_modules\//, '')
  if (!entry.hasInstallScript || path === '' || except.has(name)) continue
  if (allowScripts[name] === false || (omitDev && entry.dev)) continue
  console.log(name)
}
