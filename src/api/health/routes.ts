import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { errorResponses } from '../common/responses.js'

export interface HealthRoutesOptions {
  /** Resolves when the database answers. */
  readonly ping: () => Promise<void>
  readonly readyTimeoutMs: number
}

const Health = Type.Object(
  {
    status: Type.Union([Type.Literal('UP'), Type.Literal('DOWN')]),
    checks: Type.Optional(
      Type.Object({ database: Type.Union([Type.Literal('UP'), Type.Literal('DOWN')]) }),
    ),
  },
  { additionalProperties: false },
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
  { ping, readyTimeoutMs },
) => {
  app.get(
    '/health/live',
    {
      logLevel: 'warn',
      schema: {
        tags: ['operations'],
        summary: 'The process is up.',
        response: { 200: Health, ...errorResponses() },
      },
    },
    async () => ({ status: 'UP' as const }),
  )

  app.get(
    '/health/ready',
    {
      logLevel: 'warn',
      schema: {
        tags: ['operations'],
        summary: 'The process is up and its database answers.',
        response: { 200: Health, 503: Health, ...errorResponses() },
      },
    },
    async (request, reply) => {
      try {
        await withinTimeout(ping(), readyTimeoutMs)
        return { status: 'UP' as const, checks: { database: 'UP' as const } }
      } catch (error) {
        request.log.warn({ err: error }, 'not ready: the database does not answer')
        reply.code(503)
        return { status: 'DOWN' as const, checks: { database: 'DOWN' as const } }
      }
    },
  )
}
