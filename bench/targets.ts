/**
 * The servers `bench:compare` and `bench:instructions` load, named on their command line
 * as `name=script[,VARIABLE=value...]`.
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
}

export function targetOf(spec: string, path: string): Target {
  const [name = '', definition = ''] = spec.split(/=(.*)/s, 2)
  const [script = '', ...settings] = definition.split(',')
  const env: Record<string, string> = { DATABASE_URL: benchDatabaseUrl, LOG_LEVEL: 'info' }
  if (benchDatabaseUrl.startsWith('sqlite:')) {
    env.SQLITE_FILE = benchDatabaseUrl.slice('sqlite:'.length)
  }
  for (const setting of settings) {
    const [variable = '', value = ''] = setting.split(/=(.*)/s, 2)
    env[variable] = value
  }
  const asked = script.includes('bench/references/') ? path.replace(/^\/api\/v1/, '') : path
  return { name, script, env, path: asked }
}
