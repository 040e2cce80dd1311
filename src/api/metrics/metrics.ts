import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client'
import type { MeasuredAdmission } from '../../domain/common/admission.js'
import { plainErrorResponses } from '../errors/documented-answers.js'
import { message } from '../messages/index.js'
import { JSON_CONTENT_TYPE } from '../request/media-types.js'
import type { RequestMetrics } from './request-metrics.js'

export interface MetricsOptions {
  /** The requests counted by the pipeline (request-metrics.ts), served first. */
  readonly requestMetrics: RequestMetrics
  /** Pool figures, when the database has a pool. */
  readonly poolStats: () => { total: number; idle: number; waiting: number } | undefined
  /** The expensive work's bulkheads, by kind (decisions §9). */
  readonly bulkheads: Readonly<Record<string, MeasuredAdmission>>
  /** Long reads cancelled for running past READ_TIMEOUT so far. */
  readonly readsCancelled: () => number
  /** Log lines dropped so far because standard output stalled (infra/logging). */
  readonly logLinesDropped: () => number
  /** Whether the rate limit's Redis answers; undefined without one (REDIS_URL). */
  readonly rateLimitStoreUp?: (() => boolean) | undefined
  /** What the connection lines have cut so far (connection-lines.ts). */
  readonly connections: {
    /** Connections whose client took no byte of an answer in time. */
    readonly slowClientsDisconnected: number
    /** Connections whose pipelined requests would pass READ_AHEAD_MAX. */
    readonly pipelinesCut: number
    /** Pipelined requests waiting beyond their line's first ones now. */
    readonly readAhead: number
  }
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

/** One scrape: the request metrics, then the registry's (the same text format). */
interface Scrape {
  readonly contentType: string
  text(): Promise<string>
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
  scrape: Scrape,
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
    scrape.text().then(
      (text) => response.writeHead(200, { 'content-type': scrape.contentType }).end(text),
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
 * Prometheus metrics at /metrics: the request metrics (counted by the pipeline,
 * request-metrics.ts), then prom-client's registry: the database pool, the bounded work, the connections,
 * and Node's default process metrics. One registry per app instance.
 */
export function serveMetrics(
  app: FastifyInstance,
  {
    requestMetrics,
    poolStats,
    bulkheads,
    readsCancelled,
    logLinesDropped,
    rateLimitStoreUp,
    connections,
    port,
    host,
  }: MetricsOptions,
): void {
  const registry = new Registry()
  const scrape: Scrape = {
    contentType: registry.contentType,
    text: async () => `${requestMetrics.exposition()}\n${await registry.metrics()}`,
  }
  collectDefaultMetrics({ register: registry })
  measureBulkheads(registry, bulkheads, readsCancelled)
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

  new Counter({
    name: 'http_slow_clients_disconnected_total',
    help: "Connections closed because the client took no byte of an answer for SEND_TIMEOUT (during a stop, for the stop's shorter limit).",
    registers: [registry],
    collect() {
      // The count is kept by the connections; the counter shows it as it is now.
      this.reset()
      this.inc(connections.slowClientsDisconnected)
    },
  })
  new Gauge({
    name: 'http_read_ahead_requests',
    help: 'Pipelined requests read ahead of their turn beyond the first 16 of each connection, all connections together (at most READ_AHEAD_MAX).',
    registers: [registry],
    collect() {
      this.set(connections.readAhead)
    },
  })
  new Counter({
    name: 'http_pipelines_cut_total',
    help: 'Connections closed at once because their pipelined requests would have passed READ_AHEAD_MAX (their waiting requests not run).',
    registers: [registry],
    collect() {
      this.reset()
      this.inc(connections.pipelinesCut)
    },
  })
  new Counter({
    name: 'log_lines_dropped_total',
    help: 'Log lines dropped because standard output took none of the 16 MiB waiting for it (a reader that stopped reading).',
    registers: [registry],
    collect() {
      this.reset()
      this.inc(logLinesDropped())
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

  if (port !== undefined) {
    listenSeparately(app, scrape, { port, host })
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
      reply.type(scrape.contentType)
      return scrape.text()
    },
  )
}

/** snake_case of a bulkhead's name, as a label value: todoLists -> todo_lists. */
const labelOf = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)

/**
 * The bounded work of decisions §9: how much of each kind runs and waits, how much was
 * refused (503 e.ex.fw.9005) and why, and how many long reads were cancelled. Read from
 * the bulkheads at each scrape: they count, the registry only formats.
 */
function measureBulkheads(
  registry: Registry,
  bulkheads: Readonly<Record<string, MeasuredAdmission>>,
  readsCancelled: () => number,
): void {
  const figures = () =>
    Object.entries(bulkheads).map(
      ([name, bulkhead]) => [labelOf(name), bulkhead.figures()] as const,
    )
  new Gauge({
    name: 'work_running',
    help: 'Expensive operations running, by kind (member searches, todo list pages, password hashes).',
    labelNames: ['work'],
    registers: [registry],
    collect() {
      for (const [work, { running }] of figures()) this.set({ work }, running)
    },
  })
  new Gauge({
    name: 'work_queue_length',
    help: 'Expensive operations waiting for a place, by kind (at most QUEUE_LENGTH each).',
    labelNames: ['work'],
    registers: [registry],
    collect() {
      for (const [work, { waiting }] of figures()) this.set({ work }, waiting)
    },
  })
  new Counter({
    name: 'work_shed_total',
    help: 'Expensive operations refused with 503 e.ex.fw.9005, by kind and why: the queue was full, or the wait passed QUEUE_TIMEOUT.',
    labelNames: ['work', 'reason'],
    registers: [registry],
    collect() {
      this.reset()
      for (const [work, { shed }] of figures()) {
        this.inc({ work, reason: 'queue_full' }, shed['queue-full'])
        this.inc({ work, reason: 'queue_timeout' }, shed['queue-timeout'])
      }
    },
  })
  new Counter({
    name: 'db_reads_cancelled_total',
    help: 'Statements of member searches and todo list pages cancelled for running past READ_TIMEOUT (answered 503 e.ex.fw.9005).',
    registers: [registry],
    collect() {
      this.reset()
      this.inc(readsCancelled())
    },
  })
}
