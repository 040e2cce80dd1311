import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

/**
 * `npm test`: every suite but the long chaos runs (fuzzing at volume, crashes, outages),
 * the `*.chaos.test.ts` files beside the other tests of their behaviour, which
 * `npm run test:chaos` runs with vitest.chaos.config.ts; CI runs both.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.chaos.test.ts', '**/node_modules/**'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Most suites wait on servers, sockets and databases more than they compute: two files
    // at a time keep even a 2-core machine busy, where vitest's default (cores - 1) is one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // expect.poll waits for a page to show what an API call changed: on a loaded machine
    // that can take longer than the default second.
    expect: { poll: { timeout: 10_000 } },
  },
})
