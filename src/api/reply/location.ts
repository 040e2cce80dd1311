import type { FastifyRequest } from 'fastify'

/** Host[:port] as RFC 3986 allows it (reg-name or IP literal); anything else is not echoed. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.\-_~%]+)(?::\d{1,5})?$/

function authority(request: FastifyRequest): string {
  // request.host honours X-Forwarded-Host only when TRUST_PROXY says the proxy is trusted.
  const host = request.host
  if (host && HOST.test(host)) return host
  const { localAddress, localPort } = request.socket
  const address = localAddress?.includes(':') ? `[${localAddress}]` : localAddress
  return `${address ?? 'localhost'}:${localPort}`
}

/**
 * The absolute URL of a resource just created in the collection the request posted to.
 * The path is the route's own (the collection's canonical path), never the raw request
 * target, which may be in absolute form (`POST http://other.example/api/v1/todos`).
 */
export function locationOf(request: FastifyRequest, id: string): string {
  const path = request.routeOptions.url
  return `${request.protocol}://${authority(request)}${path}/${encodeURIComponent(id)}`
}
