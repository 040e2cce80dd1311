import { type Algorithm, hash, hashRaw } from '@node-rs/argon2'

/** `Algorithm.Argon2id`; the package declares a const enum, which isolated modules cannot read. */
const ARGON2ID = 2 as Algorithm.Argon2id

/** OWASP's recommended minimum for argon2id: 19 MiB, 2 passes, 1 lane. */
const COST = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

/**
 * argon2id with OWASP's recommended minimum, as a self-describing PHC string with a
 * random salt. Runs on libuv's thread pool, off the event loop.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password, COST)
}

/**
 * argon2id of `secret` under the given salt, 32 raw bytes, at the cost of `hashPassword`:
 * deterministic (the same input gives the same bytes on every instance), and no faster
 * to test guesses against than a stored password hash.
 */
export function hashSecret(secret: string, salt: Uint8Array): Promise<Uint8Array> {
  return hashRaw(secret, { ...COST, salt })
}
