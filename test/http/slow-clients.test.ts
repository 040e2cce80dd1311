import { describe, expect, it } from 'vitest'
import { SQLITE_TARGET } from '../helpers/databases.js'
import { unlabelledValue } from '../helpers/metrics.js'
import { residentBytes } from '../helpers/process.js'
import { serverProcessPerSuite } from '../helpers/process-per-suite.js'
import { openRaw, type RawConnection, rawExchange, rawRequest } from '../helpers/raw-http.js'
import { serverPerSuite } from '../helpers/server.js'
import { pause } from '../helpers/time.js'

/**
 * Clients that read their answers slowly or never (decisions §9): a client that takes no
 * byte of an answer for SEND_TIMEOUT is disconnected and counted in
 * http_slow_clients_disconnected_total; one that reads slowly, but reads, is served to
 * the end; an idle keep-alive connection times out as before; and what the service holds
 * for a client that pipelines without reading is bounded per connection
 * (docs/operations/capacity.md#connections). Raw connections over 127.0.0.1.
 */

/** The largest file the service serves: 1,684,244 bytes. */
const BUNDLE = '/api/docs/static/swagger-ui-bundle.js'
const BUNDLE_BYTES = 1_684_244
const SLOW_CLIENTS = 'http_slow_clients_disconnected_total'
const SEND_TIMEOUT_MS = 1000

/** `count` GETs of the bundle in one write; the last closes the connection when `closing`. */
function bundleRequests(count: number, closing = false): Buffer {
  return Buffer.concat(
    Array.from({ length: count }, (_, index) =>
      rawRequest('GET', BUNDLE, {
        headers: closing && index === count - 1 ? { Connection: 'close' } : {},
      }),
    ),
  )
}

/** A client that writes `bytes` and takes nothing before `untilMs` (then everything). */
function neverReading(baseUrl: string, bytes: Buffer, untilMs = 60_000): RawConnection {
  return openRaw(baseUrl, bytes, {
    throttle: { bytes: 0, intervalMs: untilMs, untilMs },
    timeoutMs: untilMs + 10_000,
  })
}

describe(`SEND_TIMEOUT=${SEND_TIMEOUT_MS} (SQLite)`, () => {
  const suite = serverPerSuite(SQLITE_TARGET, { SEND_TIMEOUT: String(SEND_TIMEOUT_MS) })

  async function slowClientsCut(): Promise<number> {
    const response = await suite.server.request('GET', '/metrics')
    expect(response.text).toContain(`# TYPE ${SLOW_CLIENTS} counter`)
    const value = unlabelledValue(response.text, SLOW_CLIENTS)
    if (value === undefined) throw new Error(`${SLOW_CLIENTS} is not exposed`)
    return value
  }

  it('disconnects a client that takes no byte of its answers after about SEND_TIMEOUT, and counts it', async () => {
    const before = await slowClientsCut()
    const started = Date.now()
    // More than the kernel's socket buffers hold, so that the answer waits in the process.
    const client = neverReading(suite.server.baseUrl, bundleRequests(10), 4000)
    let cutAfterMs: number | undefined
    while (cutAfterMs === undefined && Date.now() - started < 3900) {
      await pause(100)
      if ((await slowClientsCut()) > before) cutAfterMs = Date.now() - started
    }
    const exchange = await client.result

    expect(cutAfterMs).toBeGreaterThanOrEqual(SEND_TIMEOUT_MS)
    expect(cutAfterMs).toBeLessThan(3900)
    expect(await slowClientsCut()).toBe(before + 1)
    // Reading at last, it finds the connection closed, its answers cut short.
    expect(exchange.closedByServer).toBe(true)
    expect(exchange.responses.filter((response) => response.complete).length).toBeLessThan(10)
  })

  it('serves a client that reads slowly, for many times SEND_TIMEOUT, to the end', async () => {
    const before = await slowClientsCut()
    const answers = 8
    // 512 KiB every 250 ms for 3.5 s, of 13 MB; the kernel's buffers hold ~4 MB of it.
    // The service sees the client take bytes when the kernel has room again for what it
    // writes, about a third of its 4 MiB send buffer on loopback: a client must take that
    // much within SEND_TIMEOUT to be seen taking any (docs/operations/capacity.md#connections).
    const client = openRaw(suite.server.baseUrl, bundleRequests(answers, true), {
      throttle: { bytes: 512 * 1024, intervalMs: 250, untilMs: 3500 },
      timeoutMs: 30_000,
    })
    const exchange = await client.result

    expect(exchange.elapsedMs).toBeGreaterThan(3 * SEND_TIMEOUT_MS)
    expect(exchange.responses.map((response) => [response.status, response.body.length])).toEqual(
      Array.from({ length: answers }, () => [200, BUNDLE_BYTES]),
    )
    expect(exchange.closedByServer).toBe(true)
    expect(await slowClientsCut()).toBe(before)
  })

  it('closes an idle keep-alive connection after the keep-alive timeout, not SEND_TIMEOUT', async () => {
    const server = suite.server.app.server
    const keepAliveTimeout = server.keepAliveTimeout
    // Node closes an idle connection 1 s after the timeout it announces.
    server.keepAliveTimeout = 2000
    try {
      const before = await slowClientsCut()
      const exchange = await openRaw(suite.server.baseUrl, rawRequest('GET', '/health/live'), {
        timeoutMs: 10_000,
      }).result

      expect(exchange.responses.map((response) => response.status)).toEqual([200])
      expect(exchange.closedByServer).toBe(true)
      expect(exchange.elapsedMs).toBeGreaterThanOrEqual(2900)
      expect(exchange.elapsedMs).toBeLessThan(6000)
      expect(await slowClientsCut()).toBe(before)
    } finally {
      server.keepAliveTimeout = keepAliveTimeout
    }
  })
})

describe('the bytes held for a client that pipelines and never reads (SQLite, a process)', () => {
  // One connection's own bound: no limit on the read-ahead of all (read-ahead.test.ts).
  const suite = serverProcessPerSuite(SQLITE_TARGET, { READ_AHEAD_MAX: '1000000' })
  const CONNECTIONS = 40
  const PIPELINED = 4000
  /**
   * docs/operations/capacity.md#connections: at most 15 requests plus those of one 64 KiB read
   * are parsed ahead (923 of these 71-byte GETs), and the answer in progress (~300 KiB of
   * a file's buffers): under 5 MiB. Measured: ~1.8 to 2.0 MiB on Node 20, 3.8 to 4.2 MiB on
   * Node 24. Before the line's pause held, all 4,000 were parsed: ~6.8 MiB on Node 20.
   */
  const BOUND_PER_CONNECTION = 5 * 1024 * 1024

  it(`grows by less than 5 MiB per connection for ${CONNECTIONS} clients pipelining ${PIPELINED} GETs each, and serves others meanwhile`, async () => {
    const { server } = suite
    // Warm: the file's first answer and the code paths of the requests to come.
    const warm = await rawExchange(server.baseUrl, bundleRequests(2), { responses: 2 })
    expect(warm.responses.map((response) => response.status)).toEqual([200, 200])
    await pause(500)
    const before = residentBytes(server.pid)

    const clients = Array.from({ length: CONNECTIONS }, () =>
      neverReading(server.baseUrl, bundleRequests(PIPELINED)),
    )
    let peak = before
    const probes: number[] = []
    for (let sample = 0; sample < 12; sample++) {
      await pause(250)
      peak = Math.max(peak, residentBytes(server.pid))
      if (sample % 4 === 3) {
        const probe = await rawExchange(server.baseUrl, rawRequest('GET', '/health/live'), {
          responses: 1,
        })
        probes.push(probe.responses[0]?.status ?? 0)
      }
    }
    const openClients = clients.filter((client) => client.isOpen()).length
    for (const client of clients) client.close()

    expect(probes).toEqual([200, 200, 200])
    // Every client was still connected, its answers waiting, while the memory was measured.
    expect(openClients).toBe(CONNECTIONS)
    const perConnection = (peak - before) / CONNECTIONS
    expect(perConnection).toBeLessThan(BOUND_PER_CONNECTION)
  })
})
