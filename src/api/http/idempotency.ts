import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { StoredOutcome } from '../../domain/idempotency/model.js'
import type { IdempotencyService } from '../../domain/idempotency/service.js'
import { ApiProblem, PROBLEMS } from '../errors/problems.js'

/** 1 to 255 visible ASCII characters (decisions §7). */
const KEY = /^[\x21-\x7e]{1,255}$/

/** The header as an OpenAPI parameter of every POST operation. */
export const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the first request with a key is processed and its answer kept for ' +
    '24 hours; the same request again gets that answer (with Idempotent-Replayed: true) and ' +
    'creates nothing. Another request with the key is 422 e.ex.fw.7008; the same one while ' +
    'the first is processed is 409 e.ex.fw.8003. A malformed key is 400 e.ex.fw.7006.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: KEY.source },
} as const

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this request holds while it is processed. */
    idempotency: { readonly key: string; readonly claimedAt: Date } | null
  }
}

/**
 * Fields left out of the fingerprint. Kept for a day next to the answer, a fast hash
 * over a body with its password would let anyone reading the database test password
 * guesses at SHA-256 speed, undoing argon2id.
 */
const SECRET_FIELDS = new Set(['password'])

function withoutSecrets(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  return Object.fromEntries(Object.entries(value).filter(([name]) => !SECRET_FIELDS.has(name)))
}

/** Method, path (with query) and body but its secrets: what makes two requests "the same". */
function fingerprint(request: FastifyRequest): string {
  const body = JSON.stringify(request.body ?? null, withoutSecrets)
  return createHash('sha256').update(`${request.method} ${request.url}\n${body}`).digest('hex')
}

function headerText(reply: FastifyReply, name: string): string | null {
  const value = reply.getHeader(name)
  return value === undefined ? null : String(value)
}

function replay(reply: FastifyReply, outcome: StoredOutcome): FastifyReply {
  reply.code(outcome.status).header('idempotent-replayed', 'true')
  if (outcome.location !== null) reply.header('location', outcome.location)
  if (outcome.etag !== null) reply.header('etag', outcome.etag)
  // Already JSON: sent as stored, not serialized again.
  return reply.send(outcome.body)
}

/**
 * POST requests with an Idempotency-Key header. Checked once the request is known to be
 * valid, so a rejected request holds no key; the outcome is stored before it is sent,
 * so a retry arriving right after the answer already finds it. A failure on our side
 * (5xx) frees the key: the retry it invites is processed anew.
 */
export function honourIdempotencyKeys(context: FastifyInstance, service: IdempotencyService): void {
  context.decorateRequest('idempotency', null)

  const admit = async (request: FastifyRequest, reply: FastifyReply) => {
    const key = request.headers['idempotency-key']
    if (key === undefined) return
    if (typeof key !== 'string' || !KEY.test(key)) {
      throw new ApiProblem(PROBLEMS.parameterTypeMismatch)
    }
    const admission = await service.admit(key, fingerprint(request))
    if (admission.kind === 'replay') return replay(reply, admission.outcome)
    request.idempotency = { key, claimedAt: admission.claimedAt }
  }

  const keepOutcome = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const held = request.idempotency
    if (held === null) return payload
    request.idempotency = null
    try {
      if (reply.statusCode >= 500) {
        await service.release(held.key, held.claimedAt)
      } else {
        await service.complete(held.key, held.claimedAt, {
          status: reply.statusCode,
          body: typeof payload === 'string' ? payload : '',
          location: headerText(reply, 'location'),
          etag: headerText(reply, 'etag'),
        })
      }
    } catch (error) {
      // The answer stands; the key stays "being processed" until its lease runs out.
      request.log.warn({ err: error }, 'could not store the idempotency outcome')
    }
    return payload
  }

  // Only POST routes carry the hooks: reads and other writes pay nothing for them.
  context.addHook('onRoute', (route) => {
    if (![route.method].flat().includes('POST')) return
    const hooks = route as { preHandler?: unknown; onSend?: unknown }
    hooks.preHandler = [...[hooks.preHandler ?? []].flat(), admit]
    hooks.onSend = [...[hooks.onSend ?? []].flat(), keepOutcome]
  })
}
