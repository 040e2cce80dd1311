import { buildApp } from './app.js'
import { type Config, ConfigError, describeSettings, loadConfig } from './config.js'

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

const app = await buildApp(config).catch((error: unknown) => {
  console.error('Could not start:', error)
  process.exit(1)
})

/**
 * SIGTERM/SIGINT: stop accepting connections, let requests in flight finish, close the
 * database, exit 0. If they take longer than SHUTDOWN_TIMEOUT, close anyway and exit 1.
 */
function stop(signal: NodeJS.Signals): void {
  app.log.info({ signal }, 'stopping: finishing requests in flight')
  const deadline = setTimeout(() => {
    app.log.error(
      { timeoutMs: config.shutdownTimeoutMs },
      'requests still in flight; closing anyway',
    )
    app.server.closeAllConnections()
    process.exit(1)
  }, config.shutdownTimeoutMs)
  deadline.unref()
  app.close().then(
    () => {
      app.log.info('stopped')
      process.exit(0)
    },
    (error: unknown) => {
      app.log.error({ err: error }, 'error while stopping')
      process.exit(1)
    },
  )
}
process.once('SIGTERM', stop)
process.once('SIGINT', stop)

await app.listen({ host: config.host, port: config.port })
