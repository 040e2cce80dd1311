import { buildApp } from './app.js'
import { ConfigError, describeSettings, loadConfig } from './config.js'

if (process.argv.includes('--help')) {
  console.log(
    `Todo and Member REST API.\n\nUsage: npm start   (or: node dist/server.js)\n\n${describeSettings()}`,
  )
  process.exit(0)
}

let config: ReturnType<typeof loadConfig>
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

let stopping = false
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    if (stopping) return
    stopping = true
    app.log.info({ signal }, 'stopping: finishing requests in flight')
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'error while stopping')
        process.exit(1)
      },
    )
  })
}

await app.listen({ host: config.host, port: config.port })
