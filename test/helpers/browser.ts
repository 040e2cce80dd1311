import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'

/**
 * Debian's Chromium, driven headless by playwright-core (never a downloaded browser
 * build). Suites that need it are skipped, with a line saying so, where it is missing.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const HAS_CHROMIUM = existsSync(CHROMIUM_PATH)

export function sayWhenSkipped(suite: string): void {
  if (HAS_CHROMIUM) return
  console.log(
    `${suite} SKIPPED: no Chromium at ${CHROMIUM_PATH} ` +
      '(install Debian\'s "chromium" package, or set CHROMIUM_PATH).',
  )
}

const BROWSER_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** Where screenshots go: test-output/<name>.png, created as needed. */
export function screenshotPath(name: string): string {
  const path = fileURLToPath(new URL(`../../test-output/${name}.png`, import.meta.url))
  mkdirSync(dirname(path), { recursive: true })
  return path
}

/**
 * A headless Chromium with a profile of its own, for the enclosing describe block;
 * `options` apply to its pages (viewport, locale: the browser's language).
 */
export function browserPerSuite(options: BrowserContextOptions = {}) {
  let userDataDir: string | undefined
  let context: BrowserContext | undefined
  beforeAll(async () => {
    userDataDir = mkdtempSync(join(tmpdir(), 'test-chromium-'))
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: BROWSER_ARGS,
      viewport: { width: 1280, height: 900 },
      ...options,
    })
  }, 30_000)
  afterAll(async () => {
    await context?.close()
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true })
  })
  const running = (): BrowserContext => {
    if (!context) throw new Error('Chromium did not start')
    return context
  }
  return {
    newPage: (): Promise<Page> => running().newPage(),
    get context(): BrowserContext {
      return running()
    },
  }
}

/** What went wrong inside a page: uncaught errors, console errors, CSP refusals. */
export interface PageTrouble {
  readonly pageErrors: string[]
  readonly consoleErrors: string[]
  readonly blockedByCsp: string[]
}

export function watchForTrouble(page: Page): PageTrouble {
  const trouble: PageTrouble = { pageErrors: [], consoleErrors: [], blockedByCsp: [] }
  page.on('pageerror', (error) => trouble.pageErrors.push(error.message))
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) trouble.blockedByCsp.push(message.text())
    else if (message.type() === 'error') trouble.consoleErrors.push(message.text())
  })
  return trouble
}
