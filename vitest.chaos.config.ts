import { defineConfig } from 'vitest/config'

/**
 * `npm run test:chaos`: the long reliability runs, the `*.chaos.test.ts` files beside the
 * other tests of their behaviour (docs/testing.md), one file at a time.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.chaos.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // They load the machine on purpose: one at a time keeps their timings honest.
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
})
