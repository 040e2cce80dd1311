import { beforeAll, describe, expect, it } from 'vitest'
import { DATABASES } from '../helpers/databases.js'
import { TODOS } from '../helpers/raw-todos.js'
import { REQUEST_TIMEOUT, type SlowClientResult, slowClient } from '../helpers/security-probes.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * Clients that send their request too slowly (slow loris) are cut off at HEADERS_TIMEOUT
 * and REQUEST_TIMEOUT while others are served, over raw connections on every database.
 */

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`slow clients on ${target.name}`, () => {
    const suite = serverPerSuite(target, { HEADERS_TIMEOUT: '500', REQUEST_TIMEOUT: '1000' })
    const REQUEST_LINE = `GET ${TODOS} HTTP/1.1\r\nHost: 127.0.0.1\r\n`
    const TRICKLE = 'X-Slow-Loris: abcdefghijklmnopqrstuvwxyz'

    // A fresh process answers its first requests slowly (code compiled on first use), which
    // "serving others promptly" must not measure: one request first, as the suites that ran
    // before these in the same process did when they stood in one file with them.
    beforeAll(async () => {
      await suite.server.request('GET', TODOS)
    })

    function expectCutWith408(result: SlowClientResult, withinMs: number): void {
      expect(result.closedByServer).toBe(true)
      expect(result.closedAfterMs).toBeLessThan(withinMs)
      expect(result.first?.statusLine).toBe('HTTP/1.1 408 Request Timeout')
      expect(result.first?.json).toEqual(REQUEST_TIMEOUT)
    }

    it('cuts headers sent a byte at a time with 408, while serving others promptly', async () => {
      const attackers = Array.from({ length: 10 }, () =>
        slowClient(suite.server.baseUrl, REQUEST_LINE, TRICKLE),
      )
      // Other clients, on their own connections, during the attack.
      const served: { status: number; ms: number; attackersOpen: number }[] = []
      for (let round = 0; round < 4; round++) {
        const started = Date.now()
        const response = await suite.server.request('GET', TODOS)
        served.push({
          status: response.status,
          ms: Date.now() - started,
          attackersOpen: attackers.filter((attacker) => attacker.isOpen()).length,
        })
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(served.map(({ status }) => status)).toEqual([200, 200, 200, 200])
      for (const { ms } of served) expect(ms).toBeLessThan(1000)
      // The first answers came while every attacker was still connected.
      expect(served[0]?.attackersOpen).toBe(attackers.length)

      for (const attacker of attackers) expectCutWith408(await attacker.result, 3000)
      expect((await suite.server.request('GET', TODOS)).status).toBe(200)
    })

    it('cuts a connection that sends nothing, and a keep-alive request that trickles', async () => {
      const silent = slowClient(suite.server.baseUrl, '', '', { intervalMs: 60_000 })
      const keptAlive = slowClient(
        suite.server.baseUrl,
        `GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n${REQUEST_LINE}`,
        TRICKLE,
      )
      expectCutWith408(await silent.result, 3000)
      const second = await keptAlive.result
      expect(second.response.startsWith('HTTP/1.1 200 OK')).toBe(true)
      expect(second.response).toContain('HTTP/1.1 408 Request Timeout')
      expect(second.closedByServer).toBe(true)
      expect(second.closedAfterMs).toBeLessThan(3000)
    })

    it('cuts a body that trickles within REQUEST_TIMEOUT (plus the checking interval)', async () => {
      const slowBody = slowClient(
        suite.server.baseUrl,
        `POST ${TODOS} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
          'Content-Length: 100\r\n\r\n',
        '{"todoTitle":"slow"}',
      )
      const result = await slowBody.result
      // Cut by the request timeout (1000 ms, checked every 250 ms), not the headers timeout.
      expect(result.closedAfterMs).toBeGreaterThanOrEqual(950)
      expectCutWith408(result, 2500)
      expect((await suite.server.request('GET', TODOS)).status).toBe(200)
    })
  })
}
