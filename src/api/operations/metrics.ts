import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client'
import { plainErrorResponses } from '../common/responses.js'
import { JSON_CONTENT_TYPE } from '../http/media-types.js'
import { message } from '../messages/index.js'
import { RequestMetrics } from './request-metrics.js'

export interface MetricsOptions {
  /** Pool figures, when the database has a pool. */
  readonly poolStats: () => { total: number; idle: number; waiting: number } | undefined
  /** Whether the rate limit's Redis answers; undefined without one (REDIS_URL). */
  readonly rateLimitStoreUp?: (() => boolean) | undefined
  /** Serve /metrics on its own port (on `host`) instead of the API's. */
  readonly port?: number | undefined
  readonly host: string
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The port /metrics listens on when it has its own (METRICS_PORT); else undefined. */
    metricsPort(): number | undefined
  }
}

const apiError = (code: 'e.ex.fw.5001' | 'e.ex.fw.9001') =>
  JSON.stringify({ code, message: message('en', code) })
const NOT_FOUND = apiError('e.ex.fw.5001')
const SYSTEM_ERROR = apiError('e.ex.fw.9001')

/**
 * /metrics alone, on a port of its own: process and traffic figures need not be
 * reachable where the API is. Anything else there is a 404.
 */
function listenSeparately(
  app: FastifyInstance,
  registry: Registry,
  options: { port: number; host: string },
): void {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const isScrape =
      (request.method === 'GET' || request.method === 'HEAD') &&
      request.url?.split('?', 1)[0] === '/metrics'
    if (!isScrape) {
      response.writeHead(404, { 'content-type': JSON_CONTENT_TYPE }).end(NOT_FOUND)
      return
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => {
        app.log.error({ err: error }, 'could not collect metrics')
        response.writeHead(500, { 'content-type': JSON_CONTENT_TYPE }).end(SYSTEM_ERROR)
      },
    )
  })
  app.decorate('metricsPort', () => (server.address() as AddressInfo | null)?.port)
  app.addHook('onListen', async () => {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(options.port, options.host, () => resolve())
    })
    app.log.info(`Metrics at http://${options.host}:${app.metricsPort()}/metrics`)
  })
  app.addHook('onClose', async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
}

/**
 * Prometheus metrics at /metrics: requests and their duration by route template (never
 * the raw URL, so ids do not explode the label set), method and status; the database
 * pool; and Node's default process metrics. One registry per app instance.
 */
export function serveMetrics(
  app: FastifyInstance,
  { poolStats, rateLimitStoreUp, port, host }: MetricsOptions,
): void {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const requests = new RequestMetrics(registry)
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections: total, idle, and queries waiting for one.',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const stats = poolStats()
      if (!stats) return
      this.set({ state: 'total' }, stats.total)
      this.set({ state: 'idle' }, stats.idle)
      this.set({ state: 'waiting' }, stats.waiting)
    },
  })

  if (rateLimitStoreUp) {
    new Gauge({
      name: 'rate_limit_store_up',
      help: '1 while the Redis holding the RATE_LIMIT counters answers; 0 while requests are served without a shared limit.',
      registers: [registry],
      collect() {
        this.set(rateLimitStoreUp() ? 1 : 0)
      },
    })
  }

  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched'
    requests.record(request.method, route, reply.statusCode, reply.elapsedTime / 1000)
    done()
  })

  if (port !== undefined) {
    listenSeparately(app, registry, { port, host })
    return
  }
  app.decorate('metricsPort', () => undefined)
  app.get(
    '/metrics',
    {
      logLevel: 'warn',
      schema: {
        operationId: 'getMetrics',
        description:
          "Requests and their durations by route template, method and status, and the process's own metrics, in the Prometheus text format. Served on METRICS_PORT instead when that is set.",
        tags: ['operations'],
        summary: 'Prometheus metrics (text exposition format).',
        response: {
          // A text body is sent as it is: this schema only describes it.
          200: {
            description: 'The metrics of this instance.',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          ...plainErrorResponses(),
        },
      },
    },
    async (_request, reply) => {
      reply.type(registry.contentType)
      return registry.metrics()
    },
  )
}
