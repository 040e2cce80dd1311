import { describe, expect, it } from 'vitest'
import { SQLITE_TARGET } from '../helpers/databases.js'
import { serverPerSuite } from '../helpers/server.js'

const APP = 'https://app.example.com'
const preflight = (method: string) => ({
  headers: {
    origin: APP,
    'access-control-request-method': method,
    'access-control-request-headers': 'content-type',
  },
})

describe('CORS off by default', () => {
  const suite = serverPerSuite(SQLITE_TARGET)

  it('sends no CORS headers, even to a browser origin', async () => {
    const response = await suite.server.request('GET', '/api/v1/todos', {
      headers: { origin: APP },
    })
    expect(response.status).toBe(200)
    expect(response.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('answers a preflight like any OPTIONS request: Allow, no CORS grant', async () => {
    const response = await suite.server.request('OPTIONS', '/api/v1/todos', preflight('POST'))
    expect(response.status).toBe(200)
    expect(response.headers.allow).toBe('GET, HEAD, POST, OPTIONS')
    expect(response.headers['access-control-allow-origin']).toBeUndefined()
  })
})

describe('CORS for configured origins', () => {
  const suite = serverPerSuite(SQLITE_TARGET, { CORS_ORIGINS: `${APP}, http://localhost:5173` })

  it('grants a configured origin and exposes Location, ETag and X-Track', async () => {
    const response = await suite.server.request('POST', '/api/v1/todos', {
      headers: { origin: APP },
      body: { todoTitle: 'from a browser' },
    })
    expect(response.status).toBe(201)
    expect(response.headers['access-control-allow-origin']).toBe(APP)
    expect(response.headers['access-control-expose-headers']).toBe('Location, ETag, X-Track')
    expect(response.headers.vary).toContain('Origin')
  })

  it('grants nothing to another origin', async () => {
    const response = await suite.server.request('GET', '/api/v1/todos', {
      headers: { origin: 'https://evil.example' },
    })
    expect(response.status).toBe(200)
    expect(response.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('answers a preflight with 204, the allowed methods and max age', async () => {
    const response = await suite.server.request(
      'OPTIONS',
      '/api/v1/members/any-id',
      preflight('PUT'),
    )
    expect(response.status).toBe(204)
    expect(response.headers['access-control-allow-origin']).toBe(APP)
    expect(response.headers['access-control-allow-methods']).toBe(
      'GET, HEAD, POST, PUT, DELETE, OPTIONS',
    )
    expect(response.headers['access-control-allow-headers']).toBe('content-type')
    expect(response.headers['access-control-max-age']).toBe('600')
  })

  it('still answers a plain OPTIONS request with Allow, and the resource 404', async () => {
    const collection = await suite.server.request('OPTIONS', '/api/v1/todos')
    expect(collection.status).toBe(200)
    expect(collection.headers.allow).toBe('GET, HEAD, POST, OPTIONS')
    const unknown = await suite.server.request('OPTIONS', '/api/v1/members/ZZZZZZZZZZ')
    expect(unknown.status).toBe(404)
    expect((unknown.body as { code: string }).code).toBe('e.ex.mm.5001')
  })

  it('keeps unknown paths 404 and known paths 405 (its catch-all OPTIONS route changes nothing)', async () => {
    const unknownGet = await suite.server.request('GET', '/nowhere')
    expect(unknownGet.status).toBe(404)
    expect((unknownGet.body as { code: string }).code).toBe('e.ex.fw.5001')
    const unknownOptions = await suite.server.request('OPTIONS', '/nowhere')
    expect(unknownOptions.status).toBe(404)
    expect((unknownOptions.body as { code: string }).code).toBe('e.ex.fw.5001')
    const patch = await suite.server.request('PATCH', '/api/v1/todos')
    expect(patch.status).toBe(405)
    expect(patch.headers.allow).toBe('GET, HEAD, POST, OPTIONS')
  })
})
