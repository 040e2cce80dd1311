import type { FastifyRequest } from 'fastify'
import { isValidHost } from '../request/host.js'

function authority(request: FastifyRequest): string {
  // request.host honours X-Forwarded-Host only when TRUST_PROXY says the proxy is trusted;
  // Host itself was checked on arrival (request-head.ts), a forwarded one is checked here.
  const host = request.host
  if (host && isValidHost(host)) return host
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
  return `${scheme(request)}://${authority(request)}${path}/${encodeURIComponent(id)}`
}

/** http or https: a trusted X-Forwarded-Proto that names another scheme is not echoed. */
function scheme(request: FastifyRequest): 'http' | 'https' {
  const protocol = request.protocol.toLowerCase()
  if (protocol === 'http' || protocol === 'https') return protocol
  return 'encrypted' in request.socket && request.socket.encrypted ? 'https' : 'http'
}
