import fc from 'fast-check'
import { Counter, Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { BUCKETS, RequestMetrics } from '../../src/api/metrics/request-metrics.js'

/**
 * The request metrics are counted in place and written out by the service itself
 * (request-metrics.ts says why). Whatever is recorded, the text must be exactly what
 * prom-client's own Counter and Histogram write for the same answers, so a scraper
 * cannot tell the two apart; on the day prom-client writes differently, this fails.
 */

const LABELS = ['method', 'route', 'status'] as const

function promClientExposition(answers: readonly Answer[]): Promise<string> {
  const registry = new Registry()
  const total = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route template, method and status.',
    labelNames: LABELS,
    registers: [registry],
  })
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to response, by route template, method and status.',
    labelNames: LABELS,
    buckets: BUCKETS,
    registers: [registry],
  })
  for (const [method, route, status, seconds] of answers) {
    total.inc({ method, route, status })
    duration.observe({ method, route, status }, seconds)
  }
  return registry.metrics()
}

function ourExposition(answers: readonly Answer[]): string {
  const metrics = new RequestMetrics()
  for (const [method, route, status, seconds] of answers) {
    metrics.record(method, route, status, seconds)
  }
  return metrics.exposition()
}

type Answer = readonly [method: string, route: string, status: number, seconds: number]

const answer: fc.Arbitrary<Answer> = fc.tuple(
  fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'QUERY'),
  fc.oneof(
    fc.constantFrom('/api/v1/todos', '/api/v1/members/:memberId', 'unmatched'),
    // Whatever a route could be called: quotes, backslashes, new lines, any text.
    fc.string({ unit: fc.constantFrom('a', '/', '"', '\\', '\n', ':', 'é', '😀') }),
  ),
  fc.constantFrom(200, 201, 204, 304, 400, 404, 405, 409, 412, 500, 503),
  fc.oneof(fc.constantFrom(0, ...BUCKETS, 6), fc.double({ min: 0, max: 10, noNaN: true })),
)

describe('the request metrics exposition', () => {
  it('is line for line what prom-client writes for the same answers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answer, { maxLength: 40 }), async (answers) => {
        expect(ourExposition(answers)).toBe(await promClientExposition(answers))
      }),
    )
  })

  it("places an answer on a bound in that bound's bucket, as prom-client does", async () => {
    const onBounds = BUCKETS.map((bound) => ['GET', '/api/v1/todos', 200, bound] as const)
    expect(ourExposition(onBounds)).toBe(await promClientExposition(onBounds))
  })
})
