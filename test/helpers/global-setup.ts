import type { TestProject } from 'vitest/node'
import { createRunLogDir, failRunOnLeaks } from './log-scan.js'

/**
 * Says once, at the top of the run, whether the PostgreSQL suites run; gives the run a
 * directory where every captured server log line is kept, and at the end fails the run
 * if any of those lines holds a test password or a password hash (log-scan.ts).
 */
export default function setup(project: TestProject): () => void {
  const url = process.env.TEST_DATABASE_URL
  if (url) {
    const { host, pathname } = new URL(url)
    console.log(`PostgreSQL suites: running against ${host}${pathname} (one schema per suite).`)
  } else {
    console.log(
      'PostgreSQL suites: SKIPPED, TEST_DATABASE_URL is not set ' +
        '(e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm test).',
    )
  }
  const runLogDir = createRunLogDir(new Date())
  project.provide('runLogDir', runLogDir)
  return () => failRunOnLeaks(runLogDir)
}
