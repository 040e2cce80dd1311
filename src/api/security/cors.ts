import cors, { type FastifyCorsOptions } from '@fastify/cors'
import type { FastifyInstance, FastifyRequest } from 'fastify'

const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS']
const EXPOSED_HEADERS = ['Location', 'ETag', 'X-Track']

function isPreflight(request: FastifyRequest): boolean {
  return (
    request.method === 'OPTIONS' &&
    request.headers.origin !== undefined &&
    request.headers['access-control-request-method'] !== undefined
  )
}

/**
 * CORS for the configured browser origins (none: not installed at all). Only a real
 * preflight is answered by the plugin; any other OPTIONS request still reaches the
 * routes, which answer with Allow or the resource's 404.
 */
export async function allowBrowserOrigins(
  app: FastifyInstance,
  origins: readonly string[],
): Promise<void> {
  if (origins.length === 0) return
  const common: FastifyCorsOptions = {
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ALLOWED_METHODS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  }
  await app.register(cors, () => async (request: FastifyRequest) => ({
    ...common,
    preflight: isPreflight(request),
    strictPreflight: false,
  }))
}
