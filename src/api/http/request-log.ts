import { type FastifyReply, type FastifyRequest, LogController } from 'fastify'

/**
 * One JSON line per request, written when the response is sent, carrying the X-Track
 * id as `track`. The route is the template (`/api/v1/todos/:todoId`), never the raw URL.
 * Request bodies are never logged; failures are logged once, by the error handler.
 */
export class RequestLog extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'track' })
  }

  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(
    _error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    reply.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? null,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request completed',
    )
  }
}
