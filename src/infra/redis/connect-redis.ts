import type { Redis } from 'ioredis'

export interface RedisEvents {
  /** Connected (again). */
  readonly onUp?: () => void
  /** The connection was lost or could not be made; reconnecting goes on. */
  readonly onDown?: (error: Error | undefined) => void
}

export interface RedisConnection {
  readonly client: Redis
  /** Whether commands can be sent now. */
  isUp(): boolean
  /** Resolves when Redis answers a PING. */
  ping(): Promise<void>
  close(): Promise<void>
}

/**
 * A Redis client that never makes a request wait for Redis: while disconnected a command
 * fails at once instead of queueing, one that gets no answer fails after `timeoutMs`, and
 * reconnecting goes on in the background, its tries 0.1 s apart, then more, up to 1 s.
 * Events fire on changes only, not per retry.
 */
export async function connectRedis(
  url: string,
  timeoutMs: number,
  events: RedisEvents = {},
): Promise<RedisConnection> {
  // Loaded only when Redis is configured: otherwise it would only slow the start.
  const { Redis } = await import('ioredis')
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    // ioredis's ready check asks a loading Redis again after the ETA it gives, at once
    // when that is 0: an INFO loop. Without it, commands fail (LOADING) until Redis is
    // loaded, which the rate limit treats as Redis failing, and /health/ready's PING too.
    enableReadyCheck: false,
  })
  let up = false
  let lastError: Error | undefined
  let reported = false
  client.on('ready', () => {
    up = true
    reported = false
    events.onUp?.()
  })
  client.on('error', (error: Error) => {
    lastError = error
  })
  client.on('close', () => {
    up = false
    if (reported) return
    reported = true
    events.onDown?.(lastError)
  })
  return {
    client,
    isUp: () => up,
    ping: async () => {
      await client.ping()
    },
    close: async () => {
      client.disconnect()
    },
  }
}
