import { createServer, type IncomingMessage } from 'node:http'
import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { abortWithoutStacks } from '../../src/api/connection/stackless-aborts.js'

/**
 * A connection closed with pipelined requests still unanswered: Node destroys each with
 * an "aborted" error. Those errors are made without stack traces (capturing and
 * formatting hundreds at once blocked the event loop under hostile load), and the
 * process's stack trace limit is back as it was once the close is handled. Against
 * Node's own HTTP server, so that a change in Node's order of `close` listeners shows.
 */

const PIPELINED = 50

/** The stacks of the abort errors of `PIPELINED` requests that a client sent and dropped. */
async function abortStacks(stackless: boolean): Promise<string[]> {
  const stacks: string[] = []
  let requests = 0
  let allAborted = () => {}
  const aborted = new Promise<void>((resolve) => {
    allAborted = resolve
  })
  const server = createServer((request: IncomingMessage) => {
    // As the connection line does: on the connection's first request, after Node's own listeners.
    if (requests === 0 && stackless) abortWithoutStacks(request.socket)
    requests += 1
    request.on('error', (error) => {
      stacks.push(error.stack ?? '')
      if (stacks.length === PIPELINED) allAborted()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  const client = connect(port, '127.0.0.1')
  client.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(PIPELINED))
  while (requests < PIPELINED) await new Promise((resolve) => setTimeout(resolve, 10))
  client.destroy()
  await aborted
  await new Promise((resolve) => server.close(resolve))
  return stacks
}

describe('A connection closed with pipelined requests unanswered', () => {
  it('has Node abort them without capturing a stack trace, and restores the limit after', async () => {
    const limit = Error.stackTraceLimit
    const stacks = await abortStacks(true)
    expect(stacks).toHaveLength(PIPELINED)
    for (const stack of stacks) expect(stack).not.toContain('\n    at ')
    expect(Error.stackTraceLimit).toBe(limit)
    expect(new Error('after').stack).toContain('\n    at ')
  })

  it('is told apart from Node left alone, whose abort errors carry their stacks', async () => {
    const stacks = await abortStacks(false)
    expect(stacks).toHaveLength(PIPELINED)
    for (const stack of stacks) expect(stack).toContain('\n    at ')
  })
})
