import { type Algorithm, hash } from '@node-rs/argon2'

/** `Algorithm.Argon2id`; the package declares a const enum, which isolated modules cannot read. */
const ARGON2ID = 2 as Algorithm.Argon2id

/**
 * argon2id with OWASP's recommended minimum (19 MiB, 2 passes, 1 lane), as a
 * self-describing PHC string. Runs on libuv's thread pool, off the event loop.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password, {
    algorithm: ARGON2ID,
    memoryCost: 19_456,
    timeCost: 2,
    parallelism: 1,
  })
}
