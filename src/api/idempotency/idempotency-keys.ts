import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Alongside } from '../../domain/common/unit-of-work.js'
import type { StoredOutcome } from '../../domain/idempotency/model.js'
import type {
  IdempotencyScope,
  IdempotencyService,
  RequestDescription,
} from '../../domain/idempotency/service.js'
import { ApiProblem } from '../errors/api-problem.js'
import { PROBLEMS } from '../errors/catalogue.js'
import { addRouteHook } from '../route-policy/route-hooks.js'

/** 1 to 255 visible ASCII characters (decisions §7). */
const KEY = /^[\x21-\x7e]{1,255}$/

/** The key's rule, for the OpenAPI document. */
export const IDEMPOTENCY_KEY_PATTERN = KEY.source

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this request holds while it is processed. */
    idempotency: HeldKey | null
  }
}

interface HeldKey {
  readonly key: string
  readonly claimedAt: Date
  /** Stores the outcome in the unit of work that creates the resource. */
  keepIn(scope: IdempotencyScope, outcome: StoredOutcome): Promise<void>
}

/** Fields whose values are secrets: they enter the fingerprint only through a slow hash. */
const SECRET_FIELDS = new Set(['password'])
const SECRET_PLACEHOLDER = '<secret>'

/**
 * Method, path (with query) and body, each secret value taken out and put in its place
 * a placeholder: what makes two requests "the same" (the service hashes it). Without
 * secrets the text is the one fingerprinted before secrets counted, so keys stored then
 * still match.
 */
function describeRequest(request: FastifyRequest): RequestDescription {
  const secrets: unknown[] = []
  const body = JSON.stringify(request.body ?? null, (name: string, value: unknown) => {
    if (!SECRET_FIELDS.has(name)) return value
    secrets.push(value)
    return SECRET_PLACEHOLDER
  })
  return { text: `${request.method} ${request.url}\n${body}`, secrets }
}

function headerText(reply: FastifyReply, name: string): string | null {
  const value = reply.getHeader(name)
  return value === undefined ? null : String(value)
}

/** Sends a stored outcome: the stored bytes as they are, not serialized again. */
function sendOutcome(reply: FastifyReply, outcome: StoredOutcome): FastifyReply {
  reply.code(outcome.status)
  if (outcome.location !== null) reply.header('location', outcome.location)
  if (outcome.etag !== null) reply.header('etag', outcome.etag)
  return reply.send(outcome.body)
}

function replay(reply: FastifyReply, outcome: StoredOutcome): FastifyReply {
  return sendOutcome(reply.header('idempotent-replayed', 'true'), outcome)
}

/** What a creation answers with 201: the resource and the headers that name it. */
export interface CreatedAnswer<Resource> {
  /** Serialized by the route's 201 response schema. */
  readonly resource: Resource
  readonly location: string
  readonly etag: string
}

/**
 * Creates a resource and answers 201. When the request holds an Idempotency-Key, the
 * answer is rendered inside the creation's unit of work and stored there with the
 * resource: a crash or a failed write leaves both or neither, never a resource whose key
 * a retry would process again. The stored string is the one sent, byte for byte.
 */
export async function answerCreated<Created, Resource>(
  request: FastifyRequest,
  reply: FastifyReply,
  create: (alongside?: Alongside<Created, IdempotencyScope>) => Promise<Created>,
  answerOf: (created: Created) => CreatedAnswer<Resource>,
): Promise<Resource | FastifyReply> {
  const held = request.idempotency
  if (held === null) {
    const answer = answerOf(await create())
    reply.code(201).header('location', answer.location).header('etag', answer.etag)
    return answer.resource
  }
  let kept: StoredOutcome | undefined
  await create(async (created, scope) => {
    const answer = answerOf(created)
    // The serializer of the route's response schema for this status.
    const body = reply.code(201).serialize(answer.resource)
    if (typeof body !== 'string') throw new Error('the 201 serializer gave no text')
    const outcome: StoredOutcome = {
      status: 201,
      body,
      location: answer.location,
      etag: answer.etag,
    }
    await held.keepIn(scope, outcome)
    kept = outcome
  })
  if (kept === undefined) throw new Error('the creation ran without its outcome')
  // Stored with the resource: nothing is left for the onSend hook to store.
  request.idempotency = null
  return sendOutcome(reply, kept)
}

/**
 * Idempotency-Keys on the routes whose policy says `idempotent`. The
 * key is checked once the request is known to be valid, so a rejected request holds no
 * key. A creation stores its answer in its own transaction (`answerCreated`); any other
 * outcome (a 409, a 4xx) is stored after the fact, before it is sent, so a retry
 * arriving right after the answer already finds it. A failure on our side (5xx) frees
 * the key: the retry it invites is processed anew.
 */
export function honourIdempotencyKeys(context: FastifyInstance, service: IdempotencyService): void {
  context.decorateRequest('idempotency', null)

  /** Whether the request was answered with a stored outcome. */
  const admit = async (request: FastifyRequest, reply: FastifyReply): Promise<boolean> => {
    const key = request.headers['idempotency-key']
    if (key === undefined) return false
    if (typeof key !== 'string' || !KEY.test(key)) {
      throw new ApiProblem(PROBLEMS.parameterTypeMismatch)
    }
    const admission = await service.admit(key, describeRequest(request), request.clientKey)
    if (admission.kind === 'replay') {
      replay(reply, admission.outcome)
      return true
    }
    const { claimedAt } = admission
    request.idempotency = {
      key,
      claimedAt,
      keepIn: (scope, outcome) => service.completeIn(scope, key, claimedAt, outcome),
    }
    return false
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

  // Only on the routes whose policy says `idempotent` (route-policy.ts; their handlers
  // answer a creation with `answerCreated`); the others do not meet these stages at all.
  context.addHook('onRoute', (route) => {
    if (route.config?.idempotent !== true) return
    addRouteHook(route, 'preHandler', (request, reply, done) => {
      // A replayed outcome is the answer: the request goes no further.
      admit(request, reply).then((replayed) => (replayed ? undefined : done()), done)
    })
    addRouteHook(route, 'onSend', (request, reply, payload, done) => {
      if (request.idempotency === null) return done(null, payload)
      keepOutcome(request, reply, payload).then((kept) => done(null, kept), done)
    })
  })
}
