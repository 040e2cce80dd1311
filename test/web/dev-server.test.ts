import type { ViteDevServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SQLITE_TARGET } from '../helpers/databases.js'
import { http } from '../helpers/http.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * `npm run web:dev`: Vite serves the app's sources with hot reload and passes /api and
 * /health to the service named by WEB_DEV_SERVICE (docs/web-app.md, "Working on it").
 */
describe('the web app dev server (npm run web:dev)', () => {
  const suite = serverPerSuite(SQLITE_TARGET)
  let vite: ViteDevServer | undefined
  let baseUrl = ''

  beforeAll(async () => {
    process.env.WEB_DEV_SERVICE = suite.server.baseUrl
    const { createServer } = await import('vite')
    vite = await createServer({
      configFile: 'web/vite.config.ts',
      logLevel: 'silent',
      server: { host: '127.0.0.1', port: 0, hmr: false },
    })
    await vite.listen()
    const address = vite.httpServer?.address()
    if (address === null || address === undefined || typeof address === 'string') {
      throw new Error('Vite has no TCP address')
    }
    baseUrl = `http://127.0.0.1:${address.port}`
  })
  afterAll(async () => {
    await vite?.close()
    delete process.env.WEB_DEV_SERVICE
  })

  it('serves the page from the sources and passes API calls to the service', async () => {
    const page = await http(baseUrl, 'GET', '/')
    expect(page.status).toBe(200)
    expect(page.text).toContain('/src/main.tsx')
    const source = await http(baseUrl, 'GET', '/src/main.tsx')
    expect(source.status).toBe(200)
    expect(source.text).toContain('WebApp')

    const created = await http(baseUrl, 'POST', '/api/v1/todos', {
      body: { todoTitle: 'Through Vite' },
    })
    expect(created.status).toBe(201)
    const listed = await suite.server.request('GET', '/api/v1/todos')
    expect(listed.body).toEqual([expect.objectContaining({ todoTitle: 'Through Vite' })])
    expect((await http(baseUrl, 'GET', '/health/live')).status).toBe(200)
  })
})
