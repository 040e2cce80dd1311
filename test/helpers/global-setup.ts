import type { TestProject } from 'vitest/node'
import { createRunLogDir, failRunOnLeaks } from './log-scan.js'
import { HAS_PGBOUNCER, type RunningPgBouncer, startPgBouncer } from './pgbouncer.js'
import { buildBundleIfStale, buildWebAppIfStale } from './process.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** PgBouncer's URL (transaction mode) when TEST_PGBOUNCER=1 started one. */
    poolerUrl: string | undefined
  }
}

/**
 * Says once, at the top of the run, whether the PostgreSQL suites run, and how: directly
 * or, with TEST_PGBOUNCER=1, through a PgBouncer in transaction mode started here. Gives
 * the run a directory where every captured server log line is kept, and at the end fails
 * the run if any of those lines holds a test password or a password hash (log-scan.ts).
 * Builds the web app that the servers serve at / and the bundle, if older than their sources.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const url = process.env.TEST_DATABASE_URL
  let pgbouncer: RunningPgBouncer | undefined
  if (url && process.env.TEST_PGBOUNCER === '1') {
    if (!HAS_PGBOUNCER)
      throw new Error('TEST_PGBOUNCER=1 needs /usr/sbin/pgbouncer: apt-get install pgbouncer')
    pgbouncer = await startPgBouncer(url)
    const { host, pathname } = new URL(url)
    console.log(
      `PostgreSQL suites: the service through ${pgbouncer.version} (pool_mode = transaction) at ${new URL(pgbouncer.url).host}, to ${host}${pathname} (one schema per suite).`,
    )
  } else if (url) {
    const { host, pathname } = new URL(url)
    console.log(`PostgreSQL suites: running against ${host}${pathname} (one schema per suite).`)
  } else {
    console.log(
      'PostgreSQL suites: SKIPPED, TEST_DATABASE_URL is not set ' +
        '(e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm test).',
    )
  }
  const image = process.env.TEST_CONTAINER_IMAGE
  console.log(
    image
      ? `Container image suite: running ${image} with podman.`
      : 'Container image suite: SKIPPED, TEST_CONTAINER_IMAGE is not set (.ci/run builds the ' +
          'image and sets it; docs/operations/running.md#the-container-image).',
  )
  // Every server a suite starts serves the web app from dist/web, and some run the bundle
  // (dist/server.js): both are built here, once, before suites run side by side.
  buildWebAppIfStale()
  buildBundleIfStale()
  const runLogDir = createRunLogDir(new Date())
  project.provide('runLogDir', runLogDir)
  project.provide('poolerUrl', pgbouncer?.url)
  return async () => {
    await pgbouncer?.stop()
    failRunOnLeaks(runLogDir)
  }
}
