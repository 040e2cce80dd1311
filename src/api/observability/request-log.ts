import { type FastifyReply, type FastifyRequest, LogController } from 'fastify'

/** Counts answers (metrics/request-metrics.ts), by method, route template and status. */
export interface AnswerCounter {
  record(method: string, route: string, statusCode: number, seconds: number): void
}

/**
 * Each answer, once it is sent: counted, by the request metrics, under its route template
 * ('unmatched' for none), and logged as one JSON line carrying the X-Track id as `track`.
 * The route is the template (`/api/v1/todos/:todoId`), never the raw URL; `client` is
 * the client's address as TRUST_PROXY reads it (the one the rate limit counts), for an
 * operator following abuse. Request bodies are never logged; failures are logged once, by
 * the error handler.
 *
 * Fastify calls `requestCompleted` right after the onResponse hooks, for every answer;
 * counting here rather than in a hook lets a request skip the onResponse hook runner.
 */
export class RequestLog extends LogController {
  readonly #counter: AnswerCounter

  constructor(counter: AnswerCounter) {
    super({ requestIdLogLabel: 'track' })
    this.#counter = counter
  }

  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(
    _error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const route = request.routeOptions.url
    this.#counter.record(
      request.method,
      route ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    )
    reply.log.info(
      {
        method: request.method,
        route: route ?? null,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
        client: request.ip,
      },
      'request completed',
    )
  }
}
