import { afterAll, beforeAll } from 'vitest'
import type { DatabaseTarget, IsolatedDatabase } from './databases.js'
import { type ServerProcess, startServerProcess } from './process.js'

/**
 * Gives the enclosing describe block its own database (of the target's kind) and the
 * service as a child process on it with `settings`, started before its tests and
 * stopped (SIGKILL) after them: for tests that measure the process or share nothing of
 * its event loop with the clients.
 */
export function serverProcessPerSuite(
  target: DatabaseTarget,
  settings: Record<string, string> = {},
): { readonly server: ServerProcess } {
  let database: IsolatedDatabase | undefined
  let server: ServerProcess | undefined
  beforeAll(async () => {
    database = await target.create()
    server = await startServerProcess(database.config, settings)
  }, 60_000)
  afterAll(async () => {
    server?.kill('SIGKILL')
    await server?.exited
    await database?.drop()
  })
  return {
    get server() {
      if (server === undefined) throw new Error('the suite server process is not started yet')
      return server
    },
  }
}
