/** Says once, at the top of the run, whether the PostgreSQL suites run. */
export default function setup(): void {
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
}
