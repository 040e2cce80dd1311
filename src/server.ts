import type { Logger } from 'pino'
import { buildApp } from './app.js'
import { type Config, ConfigError, describeSettings, loadConfig } from './config.js'
import { describeStartFailure } from './start-failure.js'

if (process.argv.includes('--help')) {
  console.log(
    `Todo and Member REST API.\n\nUsage: npm start   (or: node dist/server.js)\n\n${describeSettings()}`,
  )
  process.exit(0)
}

let config: Config
try {
  config = loadConfig()
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  console.error(error.message)
  process.exit(1)
}

/** One line naming the setting, the cause and the fix; the whole error at LOG_LEVEL=debug. */
function failedToStart(error: unknown): never {
  console.error(describeStartFailure(error, config))
  if (config.logLevel === 'debug' || config.logLevel === 'trace') console.error(error)
  process.exit(1)
}

const app = await buildApp(config).catch(failedToStart)

/** pino writes asynchronously: flush what is buffered before the process ends. */
function exit(code: number): void {
  // Fastify's logger type omits pino's flush; the instance is pino's.
  ;(app.log as unknown as Logger).flush(() => process.exit(code))
}

/** How often idle keep-alive connections are closed while stopping. */
const IDLE_SWEEP_MS = 50

/**
 * SIGTERM/SIGINT, after the drain phase (SHUTDOWN_DRAIN): stop accepting connections, let
 * requests in flight finish, close the database, exit 0. If they take longer than
 * SHUTDOWN_TIMEOUT, close anyway and exit 1.
 */
function close(signal: NodeJS.Signals): void {
  app.log.info({ signal }, 'stopping: finishing requests in flight')
  // Fastify closes idle keep-alive connections once, when closing starts; a request that
  // finishes afterwards leaves its connection idle, and closing would wait for the client.
  const sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS)
  const deadline = setTimeout(() => {
    clearInterval(sweep)
    app.log.error(
      { timeoutMs: config.shutdownTimeoutMs },
      'requests still in flight; closing anyway',
    )
    app.server.closeAllConnections()
    exit(1)
  }, config.shutdownTimeoutMs)
  app.close().then(
    () => {
      clearInterval(sweep)
      clearTimeout(deadline)
      app.log.info('stopped')
      exit(0)
    },
    (error: unknown) => {
      clearInterval(sweep)
      app.log.error({ err: error }, 'error while stopping')
      exit(1)
    },
  )
}

/**
 * The drain phase first, when SHUTDOWN_DRAIN is set: not ready, still serving every
 * request (new connections too), each answer closing its connection, so that a load
 * balancer takes the instance out before it stops accepting (docs/operations.md).
 */
function stop(signal: NodeJS.Signals): void {
  if (config.shutdownDrainMs === 0) {
    close(signal)
    return
  }
  app.startDraining()
  app.log.info({ signal, drainMs: config.shutdownDrainMs }, 'draining: not ready, still serving')
  setTimeout(() => close(signal), config.shutdownDrainMs)
}
process.once('SIGTERM', stop)
process.once('SIGINT', stop)

await app.listen({ host: config.host, port: config.port }).catch(failedToStart)
