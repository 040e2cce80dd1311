import { buildApp } from './app.js'
import { COMMANDS_HELP, commandOf, runCommand } from './backup-command.js'
import { type Config, ConfigError, describeSettings, loadConfig } from './config/settings.js'
import { holdNextTickShape } from './infra/runtime/next-tick-shape.js'
import { printStartFailure } from './start-failure.js'

holdNextTickShape()

if (process.argv.includes('--help')) {
  console.log(
    `Todo and Member REST API.\n\nUsage: npm start   (or: node dist/server.js)\n\n${COMMANDS_HELP}\n\n${describeSettings()}`,
  )
  process.exit(0)
}

const command = commandOf(process.argv.slice(2))
if (typeof command === 'string') {
  console.error(command)
  process.exit(1)
}

let config: Config
try {
  config = loadConfig()
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  console.error(error.message)
  process.exit(1)
}

// migrate, backup FILE, restore FILE: the command's work with the service's settings, then exit.
if (command) process.exit(await runCommand(command, config))

/** One line naming the setting, the cause and the fix; the whole error at LOG_LEVEL=debug. */
function failedToStart(error: unknown): never {
  printStartFailure(error, config)
  process.exit(1)
}

const app = await buildApp(config).catch(failedToStart)

/** Fastify's logger is pino's, whose public `flush` its type leaves out. */
function canFlush(log: object): log is { flush(done?: () => void): void } {
  return 'flush' in log && typeof log.flush === 'function'
}

/**
 * Log lines are written in batches (LOG_BUFFER); a line about the process's own life
 * (listening, draining, stopping) goes out at once, for whoever is waiting on it. On
 * `process.exit`, whatever the way out, pino writes what is left synchronously.
 */
function writeLogNow(): void {
  if (canFlush(app.log)) app.log.flush()
}

/** How long an exit waits for a log write in flight: a reader that stalled cannot hold it. */
let exitCode: number | undefined
const EXIT_WRITE_WAIT_MS = 1000

/**
 * Exits once the log write in flight, if any, has finished: `process.exit` writes what is
 * left synchronously, and would otherwise write it beside a write the thread pool has not
 * done yet, so that the last lines came out of order or not at all.
 */
function exitWhenLogWritten(code: number): void {
  if (exitCode !== undefined) return
  exitCode = code
  setTimeout(() => process.exit(code), EXIT_WRITE_WAIT_MS)
  if (canFlush(app.log)) app.log.flush(() => process.exit(code))
  else process.exit(code)
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
  writeLogNow()
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
    exitWhenLogWritten(1)
  }, config.shutdownTimeoutMs)
  app.close().then(
    () => {
      clearInterval(sweep)
      clearTimeout(deadline)
      // Closing anyway (the deadline) already said how it ended.
      if (exitCode !== undefined) return
      app.log.info('stopped')
      exitWhenLogWritten(0)
    },
    (error: unknown) => {
      clearInterval(sweep)
      app.log.error({ err: error }, 'error while stopping')
      exitWhenLogWritten(1)
    },
  )
}

/**
 * The drain phase first, when SHUTDOWN_DRAIN is set: not ready, still serving every
 * request (new connections too), each answer closing its connection, so that a load
 * balancer takes the instance out before it stops accepting
 * (docs/operations/lifecycle.md#draining-behind-a-load-balancer).
 */
function stop(signal: NodeJS.Signals): void {
  if (config.shutdownDrainMs === 0) {
    close(signal)
    return
  }
  app.startDraining()
  app.log.info({ signal, drainMs: config.shutdownDrainMs }, 'draining: not ready, still serving')
  writeLogNow()
  setTimeout(() => close(signal), config.shutdownDrainMs)
}

/** A second SIGTERM or SIGINT while stopping: exit at once, the log lines written. */
function onSignal(signal: NodeJS.Signals): void {
  if (stopping) {
    app.log.warn({ signal }, 'signalled again while stopping: exiting now')
    exitWhenLogWritten(1)
    return
  }
  stopping = true
  stop(signal)
}
let stopping = false
process.on('SIGTERM', onSignal)
process.on('SIGINT', onSignal)

// After an uncaught error the process is in no known state: say why in the log, and
// exit (Node's default would print a stack on stderr and skip `exit`, and so the flush).
process.on('uncaughtException', (error, origin) => {
  app.log.fatal({ err: error, origin }, 'uncaught error: exiting now')
  exitWhenLogWritten(1)
})

await app.listen({ host: config.host, port: config.port }).catch(failedToStart)
writeLogNow()
