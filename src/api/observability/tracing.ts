import type { Span } from '@opentelemetry/api'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/**
 * With tracing on: every request is an HTTP SERVER span named `METHOD /route/:template`
 * (@fastify/otel), continuing the caller's trace when it sends a W3C `traceparent`, with
 * a child span for the handler, and under it the queries and password hashes.
 * The URL is recorded without its query string (a name search would put a person's name
 * in it), and exceptions are not recorded (a message may name a value). The request's
 * log lines carry its `trace_id` next to `track`.
 */
export async function traceRequests(app: FastifyInstance): Promise<void> {
  // Loaded only when tracing is on: otherwise it would only slow the start.
  const { FastifyOtelInstrumentation } = await import('@fastify/otel')
  const instrumentation = new FastifyOtelInstrumentation({
    recordExceptions: false,
    // The handler's span, not one per lifecycle hook: ten spans a request cost more than
    // they tell, and the hooks' time shows as the request's own.
    instrumentHooks: false,
    requestHook: (span: Span, request: FastifyRequest) => {
      const route = request.routeOptions.url
      if (route !== undefined) span.updateName(`${request.method} ${route}`)
      span.setAttribute('url.path', request.url.split('?')[0] ?? '')
    },
  })
  await app.register(instrumentation.plugin())
  app.addHook('onRequest', (request, reply, done) => {
    const span = request.opentelemetry().span
    if (span) {
      const traced = request.log.child({ trace_id: span.spanContext().traceId })
      request.log = traced
      reply.log = traced
    }
    done()
  })
}
