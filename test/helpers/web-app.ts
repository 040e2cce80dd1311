import { writeFileSync } from 'node:fs'
import { AxeBuilder } from '@axe-core/playwright'
import type { Page, Request } from 'playwright-core'
import { expect } from 'vitest'
import { type PageTrouble, screenshotPath, watchForTrouble } from './browser.js'

/** A page of the web app with what it did: its API requests and anything that went wrong. */
export interface AppPage {
  readonly page: Page
  readonly trouble: PageTrouble
  /** Every request the page sent to /api/v1, in order. */
  readonly apiRequests: Request[]
}

/** Opens the web app at `hash` (`#/members/new`) in a new page of the suite's browser. */
export async function openApp(
  newPage: () => Promise<Page>,
  baseUrl: string,
  hash = '',
): Promise<AppPage> {
  const page = await newPage()
  const trouble = watchForTrouble(page)
  const apiRequests: Request[] = []
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/api/v1/')) apiRequests.push(request)
  })
  const response = await page.goto(`${baseUrl}/${hash}`)
  expect(response?.status()).toBe(200)
  await page.locator('h1').first().waitFor()
  return { page, trouble, apiRequests }
}

const FAILED_LOAD = /^Failed to load resource: the server responded with a status of (\d+)/

/**
 * Asserts the page had no uncaught error, no CSP refusal and no console error, except
 * Chromium's own line for each API answer of a status the test provoked on purpose.
 */
export function expectNoTrouble(app: AppPage, provokedStatuses: readonly number[] = []): void {
  expect(app.trouble.pageErrors).toEqual([])
  expect(app.trouble.blockedByCsp).toEqual([])
  const unexpected = app.trouble.consoleErrors.filter((text) => {
    const status = FAILED_LOAD.exec(text)?.[1]
    return status === undefined || !provokedStatuses.includes(Number(status))
  })
  expect(unexpected).toEqual([])
}

/** What axe found on one view: every violation, by rule, with its impact. */
export interface AxeFinding {
  readonly view: string
  readonly violations: { id: string; impact: string | null | undefined; nodes: number }[]
  readonly passes: number
}

/** The axe results of a suite, written to test-output/<name>.json at the end. */
export class AxeReport {
  readonly findings: AxeFinding[] = []

  constructor(private readonly name: string) {}

  /**
   * Runs axe-core (WCAG 2.1 A and AA, and best practices) on the page as it is now and
   * asserts no serious or critical violation; records every finding for the report.
   */
  async check(page: Page, view: string): Promise<void> {
    const results = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
      .analyze()
    this.findings.push({
      view,
      violations: results.violations.map(({ id, impact, nodes }) => ({
        id,
        impact,
        nodes: nodes.length,
      })),
      passes: results.passes.length,
    })
    const serious = results.violations
      .filter(({ impact }) => impact === 'serious' || impact === 'critical')
      .map(
        ({ id, help, nodes }) =>
          `${view}: ${id} (${help}) at ${nodes.map((node) => node.target.join(' ')).join(', ')}`,
      )
    expect(serious).toEqual([])
  }

  write(): void {
    writeFileSync(
      screenshotPath(this.name).replace(/\.png$/, '.json'),
      `${JSON.stringify(this.findings, null, 2)}\n`,
    )
  }
}

/** A full-page screenshot at test-output/web-app/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: screenshotPath(`web-app/${name}`), fullPage: true })
}

/** Whether the page is wider than its viewport (a reader would have to scroll sideways). */
export async function scrollsSideways(page: Page): Promise<boolean> {
  // A string: the test code is compiled without the DOM's types.
  return (await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')) === true
}
