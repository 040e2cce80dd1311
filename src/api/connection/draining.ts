import type { FastifyInstance, FastifyReply } from 'fastify'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Starts the drain phase of a stop (SHUTDOWN_DRAIN): /health/ready answers 503 so that
     * load balancers take the instance out, while every request, on new connections too,
     * is still served, its answer closing the connection.
     */
    startDraining(): void
    /** Whether the drain phase has started. */
    isDraining(): boolean
  }
}

/**
 * While draining, every answer carries `Connection: close`: a balancer or client keeps
 * no idle connection to an instance about to stop, so none of its requests can meet a
 * connection closed under it when the instance stops accepting. Gives back what marks one
 * answer, which the hook every request meets (pipeline.ts) calls.
 */
export function closeConnectionsWhileDraining(app: FastifyInstance): (reply: FastifyReply) => void {
  let draining = false
  app.decorate('startDraining', () => {
    draining = true
  })
  app.decorate('isDraining', () => draining)
  return (reply) => {
    if (draining) reply.header('connection', 'close')
  }
}
