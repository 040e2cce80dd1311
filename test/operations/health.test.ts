import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JSON_TYPE } from '../helpers/api-errors.js'
import { POSTGRES_TARGET, SQLITE_TARGET } from '../helpers/databases.js'
import { serverPerSuite, startServer, type TestServer } from '../helpers/server.js'
import { type TcpProxy, viaProxy } from '../helpers/tcp-proxy.js'

const completedLines = (server: TestServer, route: string) =>
  server.logs.filter((line) => line.msg === 'request completed' && line.route === route)

describe('health checks on sqlite', () => {
  const suite = serverPerSuite(SQLITE_TARGET)

  it('answers live: 200 {"status":"UP"} as JSON, with X-Track', async () => {
    const response = await suite.server.request('GET', '/health/live')
    expect(response.status).toBe(200)
    expect(response.headers['content-type']).toBe(JSON_TYPE)
    expect(response.headers['x-track']).toBeTruthy()
    expect(response.body).toEqual({ status: 'UP' })
  })

  it('answers ready when the database answers', async () => {
    const response = await suite.server.request('GET', '/health/ready')
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ status: 'UP', checks: { database: 'UP' } })
  })

  it('does not log successful probes at info level', async () => {
    await suite.server.request('GET', '/health/live')
    await suite.server.request('GET', '/health/ready')
    await suite.server.request('GET', '/api/v1/todos')
    expect(completedLines(suite.server, '/health/live')).toEqual([])
    expect(completedLines(suite.server, '/health/ready')).toEqual([])
    expect(completedLines(suite.server, '/api/v1/todos').length).toBeGreaterThan(0)
  })

  it('lives outside /api/v1: HEAD works, other methods are 405', async () => {
    expect((await suite.server.request('HEAD', '/health/live')).status).toBe(200)
    const post = await suite.server.request('POST', '/health/ready')
    expect(post.status).toBe(405)
    expect(post.headers.allow).toBe('GET, HEAD')
  })
})

describe.skipIf(!POSTGRES_TARGET.available)(
  'readiness through a database outage on postgres',
  () => {
    let proxy: TcpProxy
    let server: TestServer
    let dropDatabase: () => Promise<void>

    beforeAll(async () => {
      const isolated = await POSTGRES_TARGET.create()
      dropDatabase = isolated.drop
      const proxied = await viaProxy(isolated.config)
      proxy = proxied.proxy
      server = await startServer(proxied.config, { READY_TIMEOUT: '500' })
    })
    afterAll(async () => {
      await server?.close()
      await proxy?.close()
      await dropDatabase?.()
    })

    it('answers 503 DOWN within the timeout while the database is cut off, and UP again after', async () => {
      expect((await server.request('GET', '/health/ready')).status).toBe(200)
      await proxy.cut()
      const started = Date.now()
      const down = await server.request('GET', '/health/ready')
      expect(down.status).toBe(503)
      expect(down.headers['content-type']).toBe(JSON_TYPE)
      expect(down.body).toEqual({ status: 'DOWN', checks: { database: 'DOWN' } })
      expect(Date.now() - started).toBeLessThan(2000)
      expect((await server.request('GET', '/health/live')).status).toBe(200)
      expect(
        server.logs.some((line) => line.msg === 'not ready: the database does not answer'),
      ).toBe(true)

      await proxy.restore()
      let ready = 0
      for (let attempt = 0; attempt < 50 && ready !== 200; attempt += 1) {
        ready = (await server.request('GET', '/health/ready')).status
        if (ready !== 200) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(ready).toBe(200)
    })
  },
)
