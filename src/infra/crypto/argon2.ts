import { type Algorithm, hash, hashRaw } from '@node-rs/argon2'
import { trace } from '@opentelemetry/api'

/** `Algorithm.Argon2id`; the package declares a const enum, which isolated modules cannot read. */
const ARGON2ID = 2 as Algorithm.Argon2id

/** OWASP's recommended minimum for argon2id: 19 MiB, 2 passes, 1 lane. */
const COST = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

const tracer = trace.getTracer('todo-member-api/crypto')

/** The hash as a span of its own (a no-op unless tracing is on); the input is never recorded. */
function traced<T>(name: string, work: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(
    name,
    { attributes: { 'argon2.memory_kib': COST.memoryCost, 'argon2.passes': COST.timeCost } },
    (span) => work().finally(() => span.end()),
  )
}

/**
 * argon2id with OWASP's recommended minimum, as a self-describing PHC string with a
 * random salt. Runs on libuv's thread pool, off the event loop.
 */
export function hashPassword(password: string): Promise<string> {
  return traced('argon2id hash password', () => hash(password, COST))
}

/**
 * argon2id of `secret` under the given salt, 32 raw bytes, at the cost of `hashPassword`:
 * deterministic (the same input gives the same bytes on every instance), and no faster
 * to test guesses against than a stored password hash.
 */
export function hashSecret(secret: string, salt: Uint8Array): Promise<Uint8Array> {
  return traced('argon2id hash secret', () => hashRaw(secret, { ...COST, salt }))
}
