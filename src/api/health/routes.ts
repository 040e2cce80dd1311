import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger } from 'fastify'
import { Type } from 'typebox'
import { probeErrorResponses } from '../errors/documented-answers.js'
import { described } from '../schemas/responses.js'

/** The log line of a degradable part that does not answer. */
const DEGRADED_MESSAGES = {
  replica: 'degraded: the read replica does not answer',
  rateLimit: "degraded: the rate limit's Redis does not answer",
} as const
type Degradable = keyof typeof DEGRADED_MESSAGES

export interface HealthRoutesOptions {
  /** Resolves when the database answers. */
  readonly ping: () => Promise<void>
  /**
   * What the instance can serve without, each resolving when it answers: the read
   * replica (DATABASE_READ_URL), the rate limit's Redis (REDIS_URL). Each configured one
   * is reported UP or DEGRADED; none makes the instance unready.
   */
  readonly degradable?: Partial<Record<Degradable, () => Promise<void>>>
  readonly readyTimeoutMs: number
}

/** The answer of both probes. */
export const HealthSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('UP'), Type.Literal('DOWN')]),
    checks: Type.Optional(
      Type.Object(
        {
          database: Type.Optional(Type.Union([Type.Literal('UP'), Type.Literal('DOWN')])),
          replica: Type.Optional(
            Type.Union([Type.Literal('UP'), Type.Literal('DEGRADED')], {
              description:
                'The read replica (DATABASE_READ_URL), when there is one. DEGRADED: it does not answer, and the primary serves its reads; the instance stays ready.',
            }),
          ),
          rateLimit: Type.Optional(
            Type.Union([Type.Literal('UP'), Type.Literal('DEGRADED')], {
              description:
                'The Redis holding the RATE_LIMIT counters (REDIS_URL), when there is one. DEGRADED: it does not answer, and requests are served without a shared limit; the instance stays ready.',
            }),
          ),
          shutdown: Type.Optional(
            Type.Literal('DRAINING', { description: 'The instance is stopping: take it out.' }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { title: 'Health', additionalProperties: false },
)

function withinTimeout(work: Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
  })
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

/**
 * Probes for a load balancer or orchestrator: live while the process serves, ready while
 * the database answers too. Successes are logged only at debug level (probes are frequent).
 */
export const healthRoutes: FastifyPluginAsyncTypebox<HealthRoutesOptions> = async (
  app,
  { ping, degradable = {}, readyTimeoutMs },
) => {
  /** Each degradable part's state; one that fails is logged, never fatal. */
  const degradableChecks = async (log: FastifyBaseLogger) =>
    Object.fromEntries(
      await Promise.all(
        Object.entries(degradable).map(async ([name, answers]) => {
          try {
            await withinTimeout(answers(), readyTimeoutMs)
            return [name, 'UP' as const]
          } catch (error) {
            log.warn({ err: error }, DEGRADED_MESSAGES[name as Degradable])
            return [name, 'DEGRADED' as const]
          }
        }),
      ),
    ) as Partial<Record<Degradable, 'UP' | 'DEGRADED'>>

  app.get(
    '/health/live',
    {
      logLevel: 'warn',
      schema: {
        operationId: 'checkLiveness',
        description: 'UP while the process serves requests: a liveness probe.',
        tags: ['operations'],
        summary: 'The process is up.',
        response: { 200: described(HealthSchema, 'The process serves.'), ...probeErrorResponses() },
      },
    },
    async () => ({ status: 'UP' as const }),
  )

  app.get(
    '/health/ready',
    {
      logLevel: 'warn',
      schema: {
        operationId: 'checkReadiness',
        description:
          "UP while the database answers within READY_TIMEOUT, else 503 DOWN: a load balancer's readiness check. A read replica or rate-limit Redis that does not answer is reported DEGRADED and does not make the instance unready.",
        tags: ['operations'],
        summary: 'The process is up and its database answers.',
        response: {
          200: described(HealthSchema, 'Ready: the database answers.'),
          503: described(
            HealthSchema,
            'Not ready: the database does not answer in time, or the instance is stopping.',
          ),
          ...probeErrorResponses(),
        },
      },
    },
    async (request, reply) => {
      if (app.isDraining()) {
        reply.code(503)
        return { status: 'DOWN' as const, checks: { shutdown: 'DRAINING' as const } }
      }
      const degraded = degradableChecks(request.log)
      try {
        await withinTimeout(ping(), readyTimeoutMs)
        return {
          status: 'UP' as const,
          checks: { database: 'UP' as const, ...(await degraded) },
        }
      } catch (error) {
        request.log.warn({ err: error }, 'not ready: the database does not answer')
        reply.code(503)
        return {
          status: 'DOWN' as const,
          checks: { database: 'DOWN' as const, ...(await degraded) },
        }
      }
    },
  )
}
