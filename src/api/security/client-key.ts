import type { FastifyInstance, FastifyRequest } from 'fastify'

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The client this request counts for, in the rate limit and in the fair shares of
     * expensive work (decisions §9): `sub:` and the token's subject when authenticated,
     * else `ip:` and the address TRUST_PROXY reads, an IPv6 address by its /64.
     */
    readonly clientKey: string
  }
}

/**
 * Gives every request its `clientKey`, worked out when first asked for. The address is
 * normalised as @fastify/rate-limit does, with its own function, so that both count
 * the same clients; loaded at start, as the rate limit loads it only when it is on.
 */
export async function identifyClients(app: FastifyInstance): Promise<void> {
  const { normalizeIP } = await import('@fastify/rate-limit')
  app.decorateRequest('clientKey', {
    getter(this: FastifyRequest): string {
      const subject = this.authenticatedSubject
      return subject === undefined ? `ip:${normalizeIP(this.ip, 64)}` : `sub:${subject}`
    },
  })
}
