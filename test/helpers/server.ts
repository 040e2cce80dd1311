import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import type { DatabaseConfig } from '../../src/config.js'
import { type Config, loadConfig } from '../../src/config.js'
import { type HttpOptions, type HttpResponse, http } from './http.js'

/** A real server on a free loopback port, built by the production factory. */
export interface TestServer {
  readonly app: FastifyInstance
  readonly baseUrl: string
  /** Every JSON log line the server wrote. */
  readonly logs: Record<string, unknown>[]
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
  const logs: Record<string, unknown>[] = []
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
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
  return {
    app,
    baseUrl,
    logs,
    request: (method, path, options) => http(baseUrl, method, path, options),
    close: () => app.close(),
  }
}
