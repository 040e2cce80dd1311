import { describe, expect, it } from 'vitest'
import { SQLITE_TARGET } from '../helpers/databases.js'
import { serverProcessPerSuite } from '../helpers/process-per-suite.js'
import { openRaw, rawExchange, rawRequest } from '../helpers/raw-http.js'

/**
 * A connection's pipelined requests take turns with other connections' requests
 * (decisions §9): a client pipelining hundreds of requests in one write does not hold
 * up another client, and its own answers still come in the order of its requests
 * (decisions §2, Connections). Raw connections over 127.0.0.1 (test/helpers/raw-http.ts)
 * to the service as a child process, so that the clients read as fast as the server
 * writes, not in turns with it on one event loop.
 */

const OPENAPI = '/api/v1/openapi.json'
const FLOOD = 600

/** The flood: FLOOD GETs of the OpenAPI document in one write, each with its X-Track. */
function flood(label: string): Buffer {
  return Buffer.concat(
    Array.from({ length: FLOOD }, (_, index) =>
      rawRequest('GET', OPENAPI, {
        headers: {
          'X-Track': `${label}.${index}`,
          ...(index === FLOOD - 1 && { Connection: 'close' }),
        },
      }),
    ),
  )
}

/** Resolves once `condition` holds, checking on every turn of the event loop. */
async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

describe('pipelined requests take turns with other connections (SQLite)', () => {
  const suite = serverProcessPerSuite(SQLITE_TARGET)

  it(`answers /health/live on another connection before the 100th of ${FLOOD} pipelined answers`, async () => {
    const base = suite.server.baseUrl
    const document = await rawExchange(base, rawRequest('GET', OPENAPI), { responses: 1 })
    const answerBytes = document.raw.length
    expect(document.responses[0]?.status).toBe(200)

    const flooding = openRaw(base, flood('fair'), { timeoutMs: 60_000 })
    // The flood is being answered when the other client asks.
    await until(() => flooding.received() > 0, 10_000)
    const live = await rawExchange(base, rawRequest('GET', '/health/live'), { responses: 1 })
    const floodAnswersBefore = flooding.received() / answerBytes

    expect(live.responses[0]?.status).toBe(200)
    expect(floodAnswersBefore).toBeLessThan(100)

    const answered = await flooding.result
    expect(answered.responses.map((response) => response.headers['x-track'])).toEqual(
      Array.from({ length: FLOOD }, (_, index) => `fair.${index}`),
    )
    expect(answered.responses.every((response) => response.status === 200)).toBe(true)
  })

  it('answers ten pipelining connections and a probe in turn: the probe comes before any flood ends', async () => {
    const base = suite.server.baseUrl
    const perConnection = 60
    const floods = Array.from({ length: 10 }, (_, connection) =>
      openRaw(
        base,
        Buffer.concat(
          Array.from({ length: perConnection }, (_, index) =>
            rawRequest('GET', OPENAPI, {
              headers: {
                'X-Track': `many.${connection}.${index}`,
                ...(index === perConnection - 1 && { Connection: 'close' }),
              },
            }),
          ),
        ),
        { timeoutMs: 60_000 },
      ),
    )
    await until(() => floods.every((flooding) => flooding.received() > 0), 10_000)
    const live = await rawExchange(base, rawRequest('GET', '/health/live'), { responses: 1 })
    const stillOpen = floods.filter((flooding) => flooding.isOpen()).length

    expect(live.responses[0]?.status).toBe(200)
    expect(stillOpen).toBe(floods.length)
    for (const [connection, flooding] of floods.entries()) {
      const answered = await flooding.result
      expect(answered.responses.map((response) => response.headers['x-track'])).toEqual(
        Array.from({ length: perConnection }, (_, index) => `many.${connection}.${index}`),
      )
    }
  })
})
