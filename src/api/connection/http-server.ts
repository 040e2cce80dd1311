import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerOptions,
  ServerResponse,
} from 'node:http'
import type { Socket } from 'node:net'
import type { ConnectionLines } from './connection-lines.js'

type Handler = (request: IncomingMessage, response: ServerResponse) => void

/** The Fastify options this server honours (Fastify applies them only to servers it creates). */
export interface HttpServerOptions {
  readonly http?: ServerOptions
  readonly keepAliveTimeout?: number
  readonly requestTimeout?: number
  readonly connectionTimeout?: number
}

/**
 * CONNECT makes Node hand over the raw socket (and drop it when nobody takes it). This
 * service tunnels nothing: the request is answered like any other unsupported method,
 * through the whole pipeline, and the connection closed.
 */
function answerConnect(handle: Handler, request: IncomingMessage, socket: Socket): void {
  socket.on('error', () => socket.destroy())
  const response = new ServerResponse(request)
  response.shouldKeepAlive = false
  response.assignSocket(socket)
  response.once('finish', () => {
    response.detachSocket(socket)
    socket.end()
  })
  handle(request, response)
}

/**
 * Fastify's serverFactory: Node's HTTP server with every request through the service's
 * pipeline, in connection order (`lines`). Requests Node would refuse with a bare status and no
 * body (HTTP/1.1 without Host, an Expect other than 100-continue, CONNECT) are let in,
 * so that the pipeline answers them as ApiErrors with an X-Track (request-head.ts).
 */
export function createHttpServer(
  handle: Handler,
  options: HttpServerOptions,
  lines: ConnectionLines,
): Server {
  const enqueue = (request: IncomingMessage, response: ServerResponse) =>
    lines.lineOf(request.socket, handle).enqueue({ request, response })
  const server = createServer({ ...options.http, requireHostHeader: false }, enqueue)
  server.keepAliveTimeout = options.keepAliveTimeout ?? 72_000
  server.requestTimeout = options.requestTimeout ?? 300_000
  server.setTimeout(options.connectionTimeout ?? 0)
  server.on('checkExpectation', enqueue)
  server.on('connect', (request: IncomingMessage, socket: Socket) =>
    answerConnect(handle, request, socket),
  )
  return server
}
