// Preloaded (node --import) into the built server by test/operations/log-flush.test.ts:
// on SIGUSR2 the process leaves the way EXIT_BY names, from outside any request.
const WAYS = {
  'process.exit': () => process.exit(0),
  'uncaught error': () => {
    throw new Error('thrown by the test')
  },
  'unhandled rejection': () => {
    void Promise.reject(new Error('rejected by the test'))
  },
}
const way = WAYS[process.env.EXIT_BY]
if (way) process.on('SIGUSR2', () => setImmediate(way))
