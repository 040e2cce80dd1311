import type { FastifyInstance } from 'fastify'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
export interface MetricsOptions {
  /** Pool figures, when the database has a pool. */
  readonly poolStats: () => { total: number; idle: number; waiting: number } | undefined
}

const LABELS = ['method', 'route', 'status'] as const

/**
 * Prometheus metrics at /metrics: requests and their duration by route template (never
 * the raw URL, so ids do not explode the label set), method and status; the database
 * pool; and Node's default process metrics. One registry per app instance.
 */
export function serveMetrics(app: FastifyInstance, { poolStats }: MetricsOptions): void {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route template, method and status.',
    labelNames: LABELS,
    registers: [registry],
  })
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to response, by route template, method and status.',
    labelNames: LABELS,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  })
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

  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    }
    requests.inc(labels)
    duration.observe(labels, reply.elapsedTime / 1000)
    done()
  })

  app.get(
    '/metrics',
    {
      logLevel: 'warn',
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics (text exposition format).',
        produces: ['text/plain'],
      },
    },
    async (_request, reply) => {
      reply.type(registry.contentType)
      return registry.metrics()
    },
  )
}
