import { type AddressInfo, createServer, type Server } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { connectRedis, type RedisConnection } from '../../src/infra/redis/connect-redis.js'

const TIMEOUT_MS = 250

/** The names of the commands in RESP arrays (`*N`, then N `$len` bulk strings); complete ones only. */
function commandNames(received: string): string[] {
  const names: string[] = []
  for (const match of received.matchAll(/\*\d+\r\n\$\d+\r\n([^\r]*)\r\n/g)) {
    names.push((match[1] ?? '').toUpperCase())
  }
  return names
}

/**
 * A stand-in Redis on a loopback port that answers as Redis does while it loads its data
 * set from disk, counting the commands it receives. HELLO is refused, as by Redis 5, so
 * the client speaks RESP2.
 */
async function startLoadingRedis(): Promise<{ url: string; commands: string[]; server: Server }> {
  const commands: string[] = []
  const info = 'loading:1\r\nloading_eta_seconds:0\r\n'
  const server = createServer((socket) => {
    socket.on('error', () => undefined)
    socket.on('data', (data) => {
      for (const name of commandNames(data.toString('latin1'))) {
        commands.push(name)
        if (name === 'HELLO') socket.write("-ERR unknown command 'HELLO'\r\n")
        else if (name === 'CLIENT') socket.write('+OK\r\n')
        else if (name === 'INFO') socket.write(`$${info.length}\r\n${info}\r\n`)
        else socket.write('-LOADING Redis is loading the dataset in memory\r\n')
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`, commands, server }
}

/** The Redis connection of the rate limit sends Redis a bounded number of commands, whatever it answers. */
describe('the Redis connection (connect-redis)', () => {
  const opened: { connection?: RedisConnection; server?: Server } = {}
  afterEach(async () => {
    await opened.connection?.close()
    opened.server?.close()
  })

  it('sends no loop of ready checks to a Redis that keeps saying it is loading, and fails its commands at once', async () => {
    const redis = await startLoadingRedis()
    opened.server = redis.server
    opened.connection = await connectRedis(redis.url, TIMEOUT_MS)
    await sleep(1000)
    // ioredis's ready check asks INFO again after `loading_eta_seconds`: at once when 0.
    expect(redis.commands.filter((name) => name === 'INFO').length).toBeLessThanOrEqual(1)
    expect(redis.commands.length).toBeLessThan(10)
    const started = Date.now()
    await expect(opened.connection.ping()).rejects.toThrow(/LOADING/)
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS)
  })
})
