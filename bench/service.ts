/** The service as the bench starts it, from the build, on a given database. */
import { NODE_ENVIRONMENT, NODE_FLAGS } from '../scripts/node-flags.mjs'
import type { DatabaseConfig } from '../src/config/settings.js'
import { start } from './processes.js'

export const databaseUrlOf = (database: DatabaseConfig) =>
  database.kind === 'sqlite' ? `sqlite:${database.file}` : database.url

/**
 * The service as `npm start` and the container image run it: Node's flags, then the build
 * (started with NODE_ENVIRONMENT).
 */
export const SERVICE_COMMAND = [process.execPath, ...NODE_FLAGS, 'dist/server.js']

export const service = (
  database: DatabaseConfig,
  readyPath: string,
  settings: Record<string, string> = {},
) =>
  start(
    SERVICE_COMMAND,
    {
      ...NODE_ENVIRONMENT,
      DATABASE_URL: databaseUrlOf(database),
      LOG_LEVEL: 'info',
      ...settings,
    },
    readyPath,
  )
