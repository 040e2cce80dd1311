import type { FastifyInstance } from 'fastify'

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
 * connection closed under it when the instance stops accepting.
 */
export function closeConnectionsWhileDraining(app: FastifyInstance): void {
  let draining = false
  app.decorate('startDraining', () => {
    draining = true
  })
  app.decorate('isDraining', () => draining)
  app.addHook('onRequest', (_request, reply, done) => {
    if (draining) reply.header('connection', 'close')
    done()
  })
}
