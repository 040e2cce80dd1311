import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll } from 'vitest'
import { buildApp } from '../../src/app.js'
import type { DatabaseConfig } from '../../src/config/settings.js'
import { type Config, loadConfig } from '../../src/config/settings.js'
import { type ContractChecker, contractCheckerFor, contractError } from './contract.js'
import type { DatabaseTarget, IsolatedDatabase } from './databases.js'
import { causeViolations } from './error-causes.js'
import { type HttpOptions, type HttpResponse, http } from './http.js'
import { openLogSink } from './log-scan.js'

/** A real server on a free loopback port, built by the production factory. */
export interface TestServer {
  readonly app: FastifyInstance
  readonly baseUrl: string
  /** Every JSON log line the server wrote. */
  readonly logs: Record<string, unknown>[]
  /**
   * Rejects when the response breaks the server's own OpenAPI document (contract.ts),
   * unless `contract: false`; requests on undocumented routes are not checked.
   */
  request(method: string, path: string, options?: HttpOptions): Promise<HttpResponse>
  close(): Promise<void>
}

export async function startServer(
  database: DatabaseConfig,
  settings: Record<string, string> = {},
): Promise<TestServer> {
  const config: Config = {
    ...loadConfig({ LOG_LEVEL: 'info', ...settings }),
    database,
  }
  const features = {
    authentication: config.auth !== undefined,
    rateLimit: config.rateLimit !== undefined,
  }
  const logs: Record<string, unknown>[] = []
  // Every line also goes to the run's log directory, which global teardown scans.
  const sink = openLogSink()
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const text = chunk.toString('utf8')
      sink?.write(text.endsWith('\n') ? text : `${text}\n`)
      for (const line of text.split('\n')) {
        if (line.trim() !== '') logs.push(JSON.parse(line) as Record<string, unknown>)
      }
      done()
    },
  })
  const app = await buildApp(config, { logStream })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no TCP address')
  const baseUrl = `http://127.0.0.1:${address.port}`
  // Built from this server's document (it depends on the settings) at the first request.
  let contract: Promise<ContractChecker> | undefined
  return {
    app,
    baseUrl,
    logs,
    request: async (method, path, options) => {
      const response = await http(baseUrl, method, path, options)
      // Every answer, documented or not: its code names its cause.
      const causes = causeViolations(response.status, response.body, features)
      if (causes.length > 0) throw contractError(method, path, response, causes)
      if (options?.contract === false) return response
      contract ??= contractCheckerFor(app.swagger())
      const violations = (await contract).check(method, new URL(path, baseUrl).pathname, response)
      if (violations.length > 0) throw contractError(method, path, response, violations)
      return response
    },
    close: () => app.close(),
  }
}

export interface SuiteServer {
  readonly server: TestServer
  readonly database: IsolatedDatabase
  /** Stops the server and starts a new one on the same database. */
  restart(): Promise<void>
}

/**
 * Gives the enclosing describe block its own database (of the target's kind) and a
 * server on it, created before its tests and dropped after them.
 */
export function serverPerSuite(
  target: DatabaseTarget,
  settings: Record<string, string> = {},
): SuiteServer {
  let database: IsolatedDatabase | undefined
  let server: TestServer | undefined
  beforeAll(async () => {
    database = await target.create()
    server = await startServer(database.config, settings)
  })
  afterAll(async () => {
    await server?.close()
    await database?.drop()
  })
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the suite server is not started yet')
    return value
  }
  return {
    get server() {
      return ready(server)
    },
    get database() {
      return ready(database)
    },
    async restart() {
      await ready(server).close()
      server = await startServer(ready(database).config, settings)
    },
  }
}
