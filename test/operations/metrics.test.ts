import { describe, expect, it } from 'vitest'
import { BUCKETS } from '../../src/api/metrics/request-metrics.js'
import { DATABASES, SQLITE_TARGET } from '../helpers/databases.js'
import { http } from '../helpers/http.js'
import { samples } from '../helpers/metrics.js'
import { serverPerSuite } from '../helpers/server.js'

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`metrics on ${target.name}`, () => {
    const suite = serverPerSuite(target)

    async function scrape(): Promise<string> {
      const response = await suite.server.request('GET', '/metrics')
      expect(response.status).toBe(200)
      expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8')
      return response.text
    }

    it('counts requests by route template, method and status, never by raw URL', async () => {
      const created = await suite.server.request('POST', '/api/v1/todos', {
        body: { todoTitle: 'metered' },
      })
      const todoId = (created.body as { todoId: string }).todoId
      await suite.server.request('GET', `/api/v1/todos/${todoId}`)
      await suite.server.request('GET', `/api/v1/todos/${todoId}`)
      await suite.server.request('GET', '/api/v1/todos/unknown-id')
      await suite.server.request('GET', '/no/such/path')
      const text = await scrape()
      const requests = samples(text, 'http_requests_total')
      expect(requests).toContain(
        'http_requests_total{method="GET",route="/api/v1/todos/:todoId",status="200"} 2',
      )
      expect(requests).toContain(
        'http_requests_total{method="GET",route="/api/v1/todos/:todoId",status="404"} 1',
      )
      expect(requests).toContain(
        'http_requests_total{method="POST",route="/api/v1/todos",status="201"} 1',
      )
      expect(requests).toContain(
        'http_requests_total{method="GET",route="unmatched",status="404"} 1',
      )
      expect(text).not.toContain(todoId)
      expect(text).not.toContain('unknown-id')
    })

    it('records durations in a histogram with the same labels', async () => {
      const text = await scrape()
      const buckets = samples(text, 'http_request_duration_seconds_bucket').filter((line) =>
        line.includes('route="/api/v1/todos",status="201"'),
      )
      expect(buckets.length).toBe(13)
      expect(buckets.at(-1)).toMatch(/le="\+Inf".* 1$/)
      expect(samples(text, 'http_request_duration_seconds_count').join('\n')).toContain(
        'route="/api/v1/todos",status="201"} 1',
      )
      // The exposition as Prometheus reads it: types declared, the bucket's bound first.
      expect(text).toContain('# TYPE http_requests_total counter')
      expect(text).toContain('# TYPE http_request_duration_seconds histogram')
      const series = 'method="POST",route="/api/v1/todos",status="201"'
      expect(
        buckets[0]?.startsWith(`http_request_duration_seconds_bucket{le="0.001",${series}} `),
      ).toBe(true)
      expect(buckets.at(-1)).toBe(`http_request_duration_seconds_bucket{le="+Inf",${series}} 1`)
      expect(samples(text, 'http_request_duration_seconds_count')).toContain(
        `http_request_duration_seconds_count{${series}} 1`,
      )
      const sum = samples(text, 'http_request_duration_seconds_sum').find((line) =>
        line.includes(series),
      )
      expect(sum?.startsWith(`http_request_duration_seconds_sum{${series}} `)).toBe(true)
      expect(Number(sum?.split(' ').at(-1))).toBeGreaterThan(0)
    })

    it('counts each answer in the buckets its duration falls under, and sums the durations', async () => {
      for (let i = 0; i < 3; i += 1) await suite.server.request('GET', '/api/v1/todos/counted')
      const text = await scrape()
      const value = (line: string | undefined) => Number(line?.split(' ').at(-1))
      const series = (name: string) =>
        samples(text, name).filter((line) =>
          line.includes('route="/api/v1/todos/:todoId",status="404"'),
        )
      const cumulative = series('http_request_duration_seconds_bucket').map(value)
      const total = value(series('http_request_duration_seconds_count')[0])
      const sum = value(series('http_request_duration_seconds_sum')[0])
      expect(cumulative.length).toBe(13)
      expect(cumulative.at(-1)).toBe(total)
      expect(total).toBeGreaterThanOrEqual(3)
      // Each answer lies between its bucket's lower and upper bound, so the sum does too.
      const bounds = [0, ...BUCKETS, Infinity]
      let lowest = 0
      let highest = 0
      cumulative.forEach((count, index) => {
        const inBucket = count - (cumulative[index - 1] ?? 0)
        expect(inBucket).toBeGreaterThanOrEqual(0)
        if (inBucket === 0) return
        lowest += inBucket * (bounds[index] as number)
        highest += inBucket * (bounds[index + 1] as number)
      })
      expect(sum).toBeGreaterThanOrEqual(lowest)
      expect(sum).toBeLessThanOrEqual(highest)
    })

    it('includes the default process metrics', async () => {
      const text = await scrape()
      for (const name of [
        'process_cpu_user_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_heap_size_used_bytes',
        'nodejs_eventloop_lag_seconds',
      ]) {
        expect(samples(text, name).length).toBeGreaterThan(0)
      }
      // Standard output took every line: none dropped (docs/operations/observing.md#logs).
      expect(samples(text, 'log_lines_dropped_total')).toEqual(['log_lines_dropped_total 0'])
    })

    it(`reports the connection pool${target.name === 'sqlite' ? ' (none for SQLite)' : ''}`, async () => {
      const pool = samples(await scrape(), 'db_pool_connections')
      if (target.name === 'sqlite') {
        expect(pool).toEqual([])
      } else {
        expect(pool.map((line) => line.replace(/ \d+$/, ''))).toEqual([
          'db_pool_connections{state="total"}',
          'db_pool_connections{state="idle"}',
          'db_pool_connections{state="waiting"}',
        ])
        expect(Number(pool[0]?.split(' ')[1])).toBeGreaterThan(0)
      }
    })
  })
}

describe('metrics on a port of their own (METRICS_PORT)', () => {
  const suite = serverPerSuite(SQLITE_TARGET, { HOST: '127.0.0.1', METRICS_PORT: '0' })

  it('serves /metrics only there, counting the API port traffic, and nothing else', async () => {
    const { server } = suite
    await server.request('POST', '/api/v1/todos', { body: { todoTitle: 'metered apart' } })
    const onApiPort = await server.request('GET', '/metrics')
    expect(onApiPort.status).toBe(404)
    expect(onApiPort.body).toEqual({ code: 'e.ex.fw.5001', message: 'Resource not found.' })

    const port = server.app.metricsPort()
    expect(port).toBeGreaterThan(0)
    const metricsUrl = `http://127.0.0.1:${port}`
    const scraped = await http(metricsUrl, 'GET', '/metrics')
    expect(scraped.status).toBe(200)
    expect(scraped.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8')
    expect(samples(scraped.text, 'http_requests_total')).toContain(
      'http_requests_total{method="POST",route="/api/v1/todos",status="201"} 1',
    )
    const elsewhere = await http(metricsUrl, 'GET', '/api/v1/todos')
    expect(elsewhere.status).toBe(404)
    expect(elsewhere.headers['content-type']).toBe('application/json;charset=UTF-8')
  })
})
