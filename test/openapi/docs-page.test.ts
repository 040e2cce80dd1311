import { statSync } from 'node:fs'
import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DOCS_CSP } from '../../src/api/openapi/docs-page.js'
import {
  browserPerSuite,
  HAS_CHROMIUM,
  sayWhenSkipped,
  screenshotPath,
  watchForTrouble,
} from '../helpers/browser.js'
import { type IsolatedDatabase, SQLITE_TARGET } from '../helpers/databases.js'
import { type IdentityProvider, startIdentityProvider } from '../helpers/identity-provider.js'
import { serverPerSuite, startServer, type TestServer } from '../helpers/server.js'

/**
 * The Swagger UI page at /api/docs in a real browser (Debian's Chromium, driven by
 * playwright-core): it renders every endpoint of the document and its "Try it out"
 * reaches the live server.
 */

sayWhenSkipped('docs page browser test')

const SCREENSHOT = screenshotPath('docs-page')
const AUTHORIZE_SCREENSHOT = screenshotPath('docs-page-authorize')

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']
const ENDPOINTS = [
  'GET /api/v1/todos',
  'POST /api/v1/todos',
  'GET /api/v1/todos/{todoId}',
  'PUT /api/v1/todos/{todoId}',
  'DELETE /api/v1/todos/{todoId}',
  'GET /api/v1/members',
  'POST /api/v1/members',
  'GET /api/v1/members/{memberId}',
  'PUT /api/v1/members/{memberId}',
  'DELETE /api/v1/members/{memberId}',
  'GET /health/live',
  'GET /health/ready',
]

/** Swagger UI breaks long paths with zero-width spaces and <wbr>; the text without them. */
const plainText = (text: string) => text.replace(/[\u200B\s]+/g, ' ').trim()

/** `METHOD path` of every operation block the page renders. */
function renderedOperations(page: Page): Promise<string[]> {
  return page.$$eval('.swagger-ui .opblock', (blocks) =>
    blocks.map((block) => {
      const text = (selector: string) => block.querySelector(selector)?.textContent ?? ''
      return `${text('.opblock-summary-method')} ${text('.opblock-summary-path')}`
    }),
  )
}

/** Presses "Execute" in the operation block; the page's own request to GET /api/v1/todos answers. */
async function execute(page: Page, block: Locator, baseUrl: string) {
  const answered = page.waitForResponse(
    (response) =>
      response.url() === `${baseUrl}/api/v1/todos` && response.request().method() === 'GET',
  )
  await block.locator('button.execute').click()
  return answered
}

/** Opens GET /api/v1/todos, presses "Try it out" and "Execute"; the page's own request answers. */
async function tryListingTodos(page: Page, baseUrl: string) {
  const block = page.locator('.opblock.opblock-get', {
    has: page.locator('.opblock-summary-path[data-path="/api/v1/todos"]'),
  })
  await expect.poll(() => block.count()).toBe(1)
  await block.locator('.opblock-summary').first().click()
  const tryItOut = block.locator('button.try-out__btn', { hasText: 'Try it out' })
  if (await tryItOut.isVisible()) await tryItOut.click()
  return { block, response: await execute(page, block, baseUrl) }
}

describe.skipIf(!HAS_CHROMIUM)('docs page in Chromium on sqlite', () => {
  const suite = serverPerSuite(SQLITE_TARGET)
  const browser = browserPerSuite()

  it('renders every endpoint and runs "Try it out" against the live server', async () => {
    const { server } = suite
    const created = await server.request('POST', '/api/v1/todos', {
      body: { todoTitle: 'Seen from Swagger UI' },
    })
    expect(created.status).toBe(201)

    const page = await browser.newPage()
    const { pageErrors, blockedByCsp: blocked } = watchForTrouble(page)
    try {
      const opened = await page.goto(`${server.baseUrl}/api/docs`)
      expect(opened?.status()).toBe(200)
      expect((await opened?.allHeaders())?.['content-security-policy']).toBe(DOCS_CSP)
      expect(page.url().startsWith(`${server.baseUrl}/api/docs`)).toBe(true)
      await page.locator('.swagger-ui .opblock').first().waitFor({ state: 'visible' })
      await expect
        .poll(() => page.locator('.swagger-ui .info .title').textContent())
        .toMatch(/Todo and Member API/)

      // Every endpoint is listed, with its method and path: each operation of the document.
      const rendered = (await renderedOperations(page)).map(plainText)
      expect(rendered).toEqual(expect.arrayContaining(ENDPOINTS))
      const document = (await server.request('GET', '/api/v1/openapi.json')).body as {
        paths: Record<string, Record<string, unknown>>
      }
      const documented = Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((key) => HTTP_METHODS.includes(key))
          .map((method) => `${method.toUpperCase()} ${path}`),
      )
      expect([...rendered].sort()).toEqual(documented.sort())
      // ...and nothing of the documentation machinery.
      expect(rendered.filter((operation) => /\/api\/(docs|v1\/openapi)/.test(operation))).toEqual(
        [],
      )

      // Try it out: GET /api/v1/todos, executed by the page against the live server.
      const { block, response } = await tryListingTodos(page, server.baseUrl)
      expect(response.status()).toBe(200)

      const live = block.locator('.live-responses-table')
      await live.waitFor({ state: 'visible' })
      await expect
        .poll(() => live.locator('.response .response-col_status').first().textContent())
        .toMatch(/^\s*200\s*$/)
      await expect
        .poll(() => live.locator('.response .response-col_description').first().textContent())
        .toContain('Seen from Swagger UI')

      // The server logged the browser's request (found by the X-Track id it answered with).
      const track = (await response.allHeaders())['x-track']
      expect(track).toBeTruthy()
      expect(server.logs).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            msg: 'request completed',
            track,
            method: 'GET',
            route: '/api/v1/todos',
            status: 200,
          }),
        ]),
      )

      await page.screenshot({ path: SCREENSHOT, fullPage: true })
      expect(statSync(SCREENSHOT).size).toBeGreaterThan(0)
      expect(pageErrors).toEqual([])
      // The page works under its Content-Security-Policy: the browser blocked nothing.
      expect(blocked).toEqual([])
    } finally {
      await page.close()
    }
  }, 60_000)
})

describe.skipIf(!HAS_CHROMIUM)('docs page in Chromium with authentication on', () => {
  let provider: IdentityProvider
  let database: IsolatedDatabase
  let server: TestServer
  const browser = browserPerSuite()

  beforeAll(async () => {
    provider = await startIdentityProvider()
    database = await SQLITE_TARGET.create()
    server = await startServer(database.config, {
      AUTH_JWKS_URL: provider.jwksUrl,
      AUTH_ISSUER: provider.issuer,
      AUTH_AUDIENCE: provider.audience,
    })
  })

  afterAll(async () => {
    await server?.close()
    await provider?.stop()
    await database?.drop()
  })

  it('takes a pasted bearer token under "Authorize" and sends it with "Try it out"', async () => {
    const page = await browser.newPage()
    const { pageErrors } = watchForTrouble(page)
    try {
      await page.goto(`${server.baseUrl}/api/docs`)
      await page.locator('.swagger-ui .opblock').first().waitFor({ state: 'visible' })
      // Without a token the page's request is refused.
      const refused = await tryListingTodos(page, server.baseUrl)
      expect(refused.response.status()).toBe(401)

      await page.locator('.swagger-ui .auth-wrapper button.authorize').click()
      const dialog = page.locator('.swagger-ui .dialog-ux .modal-ux')
      await dialog.waitFor({ state: 'visible' })
      await dialog
        .locator('input')
        .first()
        .fill(await provider.token('todos:read'))
      await dialog.locator('button.authorize').click()
      await page.screenshot({ path: AUTHORIZE_SCREENSHOT })
      await dialog.locator('button.btn-done').click()

      const response = await execute(page, refused.block, server.baseUrl)
      expect(response.status()).toBe(200)
      expect((await response.request().allHeaders()).authorization).toMatch(/^Bearer ey/)
      expect(pageErrors).toEqual([])
    } finally {
      await page.close()
    }
  }, 60_000)
})
