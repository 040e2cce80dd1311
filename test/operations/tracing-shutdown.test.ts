import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { trace } from '@opentelemetry/api'
import { afterAll, describe, expect, it } from 'vitest'
import { SHUTDOWN_EXPORT_MS, startTracing } from '../../src/infra/telemetry/tracing.js'

/**
 * A stand-in collector that takes every export and answers `200` one space every 100 ms,
 * never ending: the exporter's timeout, which counts only silence, never fires.
 */
async function startTricklingCollector() {
  const paths: string[] = []
  const server = createServer((request, response) => {
    paths.push(request.url ?? '')
    request.resume()
    response.writeHead(200, { 'content-type': 'application/json' })
    const trickle = setInterval(() => response.write(' '), 100)
    response.on('close', () => clearInterval(trickle))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const close = async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
  return { endpoint, paths, close }
}

describe('tracing when the service stops', () => {
  const settings = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_PROTOCOL'] as const
  const before = settings.map((name) => process.env[name])
  afterAll(() => {
    settings.forEach((name, index) => {
      if (before[index] === undefined) delete process.env[name]
      else process.env[name] = before[index]
    })
  })

  it('gives the last spans a bounded time, however slowly the collector answers', async () => {
    const collector = await startTricklingCollector()
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.endpoint
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json'
    const tracing = await startTracing()
    trace.getTracer('tracing-shutdown-test').startSpan('the last span').end()
    const started = Date.now()
    const sent = await tracing.shutdown()
    const took = Date.now() - started
    await collector.close()
    expect(collector.paths).toContain('/v1/traces')
    expect(sent).toBe(false)
    expect(took).toBeGreaterThanOrEqual(SHUTDOWN_EXPORT_MS - 50)
    expect(took).toBeLessThan(SHUTDOWN_EXPORT_MS + 1000)
  })
})
