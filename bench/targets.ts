/**
 * The servers `bench:compare` and `bench:instructions` load, named on their command line
 * as `name=script[,VARIABLE=value...]`. `NODE_FLAGS=--a --b` is no variable: its flags
 * are given to Node before the script, for those Node refuses in NODE_OPTIONS (V8's
 * `--min-semi-space-size`, say).
 */
import { resolve } from 'node:path'

/** DATABASE_URL, else the bench's 10,000-member SQLite file (made by `npm run bench`). */
export const benchDatabaseUrl =
  process.env.DATABASE_URL ?? `sqlite:${resolve('data/bench/members-v3-10k.sqlite')}`

export interface Target {
  readonly name: string
  readonly script: string
  /** The database (and its file as SQLITE_FILE), LOG_LEVEL=info, then the spec's own. */
  readonly env: Record<string, string>
  /** What it is asked: scripts under bench/references/ serve the path without /api/v1. */
  readonly path: string
  /** Node's flags, before the script. */
  readonly nodeFlags: readonly string[]
}

export function targetOf(spec: string, path: string): Target {
  const [name = '', definition = ''] = spec.split(/=(.*)/s, 2)
  const [script = '', ...settings] = definition.split(',')
  const env: Record<string, string> = { DATABASE_URL: benchDatabaseUrl, LOG_LEVEL: 'info' }
  if (benchDatabaseUrl.startsWith('sqlite:')) {
    env.SQLITE_FILE = benchDatabaseUrl.slice('sqlite:'.length)
  }
  const nodeFlags: string[] = []
  for (const setting of settings) {
    const [variable = '', value = ''] = setting.split(/=(.*)/s, 2)
    if (variable === 'NODE_FLAGS') nodeFlags.push(...value.split(' ').filter(Boolean))
    else env[variable] = value
  }
  const asked = script.includes('bench/references/') ? path.replace(/^\/api\/v1/, '') : path
  return { name, script, env, path: asked, nodeFlags }
}
