/**
 * The flags Node runs the service with wherever it runs it for real: `npm start`
 * (package.json), the container image (the Dockerfile's ENTRYPOINT), `npm run bench`, and
 * the tests of the built server (test/helpers/process.ts, FROM_BUILD).
 * test/operations/start-command.test.ts holds the first two to this list. They cannot be set from
 * inside the process: V8 sizes its heap before any code runs.
 *
 * --max-semi-space-size=4: V8's young generation (where each request's short-lived
 *   objects are made) grows to at most 4 MB a half instead of 16. Busy, the default grows
 *   it and the process keeps what it grew, beside the work areas of the hashes in flight;
 *   a larger young generation saves a little CPU per GET but takes the POST load's peak
 *   memory too near its target (docs/performance.md, "Memory").
 * --max-old-space-size=256: by default V8 sizes the old generation from the machine's
 *   memory and lets garbage reach about four times what is alive before a full
 *   collection; with this ceiling, about twice, so peak RSS under hostile load stays far
 *   lower (docs/operations/capacity.md#memory-the-node-flags).
 */
export const NODE_FLAGS = ['--max-semi-space-size=4', '--max-old-space-size=256']

/**
 * The environment Node starts the service with, in the same places (the image's ENV,
 * `npm start`'s script unless the variable is already set), for the same reason: libuv
 * sizes its thread pool when it is first used, while Node loads the service's modules.
 *
 * UV_THREADPOOL_SIZE=2: two threads where password hashes, file reads and log writes run,
 *   instead of 4. The service hands the pool up to HASH_CONCURRENCY (4) hashes; two are
 *   computed while the next two wait in the pool's queue, so a thread that finishes a hash
 *   starts the next at once, without waiting for the event loop to hand it over. With
 *   four threads and two hashes the cores rested between hashes; with four hashes on four
 *   threads, their 19 MiB work areas contended for the cache (docs/performance.md, "POST:
 *   two hashing threads fed from the pool's queue").
 */
export const NODE_ENVIRONMENT = { UV_THREADPOOL_SIZE: '2' }

/** `NAME=${NAME:-value} …`: NODE_ENVIRONMENT for a POSIX shell, a value already set kept. */
export const NODE_ENVIRONMENT_SHELL = Object.entries(NODE_ENVIRONMENT)
  .map(([name, value]) => `${name}=\${${name}:-${value}}`)
  .join(' ')
