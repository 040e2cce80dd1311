import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { WEB_APP_CSP } from '../../src/api/web/web-app.js'
import { expectApiError, METHOD_NOT_SUPPORTED, NOT_FOUND } from '../helpers/api-errors.js'
import { SQLITE_TARGET } from '../helpers/databases.js'
import { WEB_APP_DIR } from '../helpers/process.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * The web app's files as the service serves them at / (src/api/web/web-app.ts): from
 * the build in dist/web, with the headers a browser and a cache need, and nothing else
 * of the path space taken from the API.
 */

const ASSETS = join(WEB_APP_DIR, 'assets')
const assetsEndingWith = (suffix: string) =>
  readdirSync(ASSETS).filter((name) => name.endsWith(suffix))
/** The whole app's JavaScript, gzipped, must stay under this (issue 14). */
const SCRIPT_BUDGET_BYTES = 100 * 1024

describe('the web app at / on sqlite', () => {
  const suite = serverPerSuite(SQLITE_TARGET)

  it('serves the page with a strict Content-Security-Policy, revalidated on every use', async () => {
    for (const path of ['/', '/index.html']) {
      const response = await suite.server.request('GET', path)
      expect(response.status).toBe(200)
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(response.headers['content-security-policy']).toBe(WEB_APP_CSP)
      expect(response.headers['cache-control']).toBe('no-cache')
      expect(response.headers['x-content-type-options']).toBe('nosniff')
      expect(response.headers['referrer-policy']).toBe('no-referrer')
      expect(response.headers.etag).toMatch(/^W\/".+"$/)
      expect(response.headers['set-cookie']).toBeUndefined()
      expect(response.text).toContain('<div id="app"></div>')
    }
    expect(WEB_APP_CSP).toContain("script-src 'self'")
    expect(WEB_APP_CSP).not.toMatch(/unsafe-inline|unsafe-eval|https?:/)

    const page = await suite.server.request('GET', '/')
    const revalidated = await suite.server.request('GET', '/', {
      headers: { 'if-none-match': String(page.headers.etag) },
    })
    expect(revalidated.status).toBe(304)
  })

  it('loads no inline script and nothing from another origin', async () => {
    const html = (await suite.server.request('GET', '/')).text
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    expect(scripts.length).toBeGreaterThan(0)
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="\/assets\/[^"]+\.js"/)
      expect(body).toBe('')
    }
    expect(html).not.toMatch(/\b(?:src|href)="(?:https?:)?\/\//)
    expect(html).not.toMatch(/\bstyle=/)
  })

  it('serves each hashed asset as immutable, compressed when the client takes it', async () => {
    const [script] = assetsEndingWith('.js')
    expect(script).toBeDefined()
    const url = `${suite.server.baseUrl}/assets/${script}`
    const plain = readFileSync(join(ASSETS, script as string), 'utf8')

    for (const encoding of ['br', 'gzip']) {
      const response = await fetch(url, { headers: { 'accept-encoding': encoding } })
      expect(response.status).toBe(200)
      expect(response.headers.get('content-encoding')).toBe(encoding)
      expect(response.headers.get('vary')).toMatch(/accept-encoding/i)
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      expect(response.headers.get('content-type')).toBe('application/javascript; charset=utf-8')
      expect(await response.text()).toBe(plain)
    }
    const identity = await suite.server.request('GET', `/assets/${script}`)
    expect(identity.headers['content-encoding']).toBeUndefined()
    expect(identity.text).toBe(plain)
  })

  it('serves the favicon the page names', async () => {
    const html = (await suite.server.request('GET', '/')).text
    const icon = /<link rel="icon" href="([^"]+)"/.exec(html)?.[1]
    expect(icon).toBe('/favicon.svg')
    const response = await suite.server.request('GET', icon as string)
    expect(response.status).toBe(200)
    expect(response.headers['content-type']).toMatch(/^image\/svg\+xml/)
  })

  it('answers HEAD like GET, and ignores a Range rather than refusing it', async () => {
    const head = await suite.server.request('HEAD', '/')
    expect(head.status).toBe(200)
    expect(head.text).toBe('')
    expect(head.headers['content-security-policy']).toBe(WEB_APP_CSP)
    for (const range of ['bytes=0-10', 'bytes=999999-', 'bytes=x']) {
      const response = await suite.server.request('GET', '/', { headers: { range } })
      expect(response.status).toBe(200)
      expect(response.text).toContain('<div id="app"></div>')
    }
  })

  it('leaves every other path and method to the API: the contract 404 and 405', async () => {
    for (const path of [
      '/nothing',
      '/assets/',
      '/assets/missing.js',
      '/index.html/',
      '/src/main.tsx',
      '/%2e%2e/package.json',
      '/assets/..%2f..%2fpackage.json',
    ]) {
      expectApiError(await suite.server.request('GET', path), 404, NOT_FOUND)
    }
    const post = await suite.server.request('POST', '/', { body: {} })
    expectApiError(post, 405, METHOD_NOT_SUPPORTED)
    expect(post.headers.allow).toBe('GET, HEAD')
  })

  it(`keeps the whole app's JavaScript under ${SCRIPT_BUDGET_BYTES / 1024} KB gzipped`, () => {
    const scripts = assetsEndingWith('.js')
    const gzipped = scripts.reduce(
      (total, name) => total + gzipSync(readFileSync(join(ASSETS, name)), { level: 9 }).length,
      0,
    )
    console.log(`web app JavaScript: ${scripts.length} file(s), ${gzipped} bytes gzipped`)
    expect(gzipped).toBeGreaterThan(0)
    expect(gzipped).toBeLessThan(SCRIPT_BUDGET_BYTES)
  })
})

describe('WEB_APP=false on sqlite', () => {
  const suite = serverPerSuite(SQLITE_TARGET, { WEB_APP: 'false' })

  it('serves the API only: / is the contract 404', async () => {
    expectApiError(await suite.server.request('GET', '/'), 404, NOT_FOUND)
    expectApiError(await suite.server.request('GET', '/favicon.svg'), 404, NOT_FOUND)
    expect((await suite.server.request('GET', '/api/v1/todos')).status).toBe(200)
  })
})
