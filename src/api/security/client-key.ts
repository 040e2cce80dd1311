import { isIPv6 } from 'node:net'
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

/** An address made a client's: @fastify/rate-limit's normalizeIP, or the address as it is. */
export type NormaliseAddress = (ip: string, ipv6Subnet?: number) => string

const wholeAddress: NormaliseAddress = (ip) => ip.toLowerCase()

/** The key of the client a request counts for, its address normalised by `normalise`. */
export function clientKeyOf(request: FastifyRequest, normalise: NormaliseAddress): string {
  const subject = request.authenticatedSubject
  return subject === undefined ? `ip:${normalise(request.ip, 64)}` : `sub:${subject}`
}

/**
 * Gives every request its `clientKey`, worked out when first asked for, with the rate
 * limit's own normalizeIP so that both count the same clients. That module is loaded when
 * the first IPv6 client comes, not at start, which it would slow; until it is there, that
 * client's address counts whole (an IPv4 address is the same either way).
 */
export function identifyClients(app: FastifyInstance): void {
  let normalise: NormaliseAddress | undefined
  let loading = false
  const load = () => {
    loading = true
    import('@fastify/rate-limit').then(
      (module) => {
        normalise = module.normalizeIP
      },
      () => {
        loading = false
      },
    )
  }
  app.decorateRequest('clientKey', {
    getter(this: FastifyRequest): string {
      if (!normalise && !loading && isIPv6(this.ip)) load()
      return clientKeyOf(this, normalise ?? wholeAddress)
    },
  })
}
