import type { FastifyInstance } from 'fastify'
import type { Redis } from 'ioredis'
import type { RateLimitConfig } from '../../config/settings.js'
import { ApiProblem } from '../errors/api-problem.js'
import { PROBLEMS } from '../errors/catalogue.js'
import { clientKeyOf } from './client-key.js'

/** Where the counters are shared: a Redis connection (infra/redis/connect-redis.ts). */
export interface RateLimitStore {
  readonly client: Redis
  isUp(): boolean
}

/**
 * RATE_LIMIT on every /api/v1 route, counted per client in Redis when REDIS_URL is set
 * (shared by every instance), else in this process. Runs after authentication, so an
 * authenticated client is counted by its subject wherever it connects from. Every answer
 * carries RateLimit-Limit, -Remaining and -Reset; one over the limit is 429 e.ex.fw.6006
 * with Retry-After. A Redis that fails is skipped: the request is served (fail open);
 * the connection's own events log it, and metrics and readiness show it.
 */
export async function limitRequestRates(
  context: FastifyInstance,
  limit: RateLimitConfig,
  redis: RateLimitStore | undefined,
): Promise<void> {
  // Loaded only when a limit is set: otherwise it would only slow the start.
  const { default: rateLimit, normalizeIP } = await import('@fastify/rate-limit')
  await context.register(rateLimit, {
    max: limit.max,
    timeWindow: limit.windowMs,
    keyGenerator: (request) => clientKeyOf(request, normalizeIP),
    enableDraftSpec: true,
    skipOnError: true,
    nameSpace: 'todo-member-api:rate:',
    ...(redis && { redis: redis.client }),
    errorResponseBuilder: (_request, { ttl }) =>
      new ApiProblem(PROBLEMS.tooManyRequests, {
        args: [String(Math.max(1, Math.ceil(ttl / 1000)))],
      }),
  })
}
