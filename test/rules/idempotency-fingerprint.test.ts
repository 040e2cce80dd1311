import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { IdempotencyRepository } from '../../src/domain/idempotency/repository.js'
import { IdempotencyService } from '../../src/domain/idempotency/service.js'
import { hashSecret } from '../../src/infra/crypto/argon2.js'
import { unbounded } from '../helpers/bulkheads.js'

/** Fingerprints touch no storage: a repository that is never called. */
const unused = new Proxy({} as IdempotencyRepository, {
  get: () => {
    throw new Error('no storage expected')
  },
})

/** Two instances, as two processes serving one database would be. */
const [one, another] = [1, 2].map(
  () =>
    new IdempotencyService({
      repository: unused,
      now: () => new Date(),
      slowHash: hashSecret,
      hashing: unbounded(),
    }),
) as [IdempotencyService, IdempotencyService]

const text = 'POST /api/v1/members\n{"credential":{"password":"<secret>"}}'

describe('IdempotencyService.fingerprint', () => {
  it('is the SHA-256 of the text alone for a request without secrets, as before', async () => {
    const plain = 'POST /api/v1/todos\n{"todoTitle":"x"}'
    expect(await one.fingerprint('key', { text: plain, secrets: [] })).toBe(
      createHash('sha256').update(plain).digest('hex'),
    )
  })

  it('is the same on every instance for the same key and secrets, another for another secret', async () => {
    const [first, second, otherSecret, otherKey] = await Promise.all([
      one.fingerprint('key-1', { text, secrets: ['Pa55word-Secret'] }),
      another.fingerprint('key-1', { text, secrets: ['Pa55word-Secret'] }),
      one.fingerprint('key-1', { text, secrets: ['NewPassw0rd'] }),
      one.fingerprint('key-2', { text, secrets: ['Pa55word-Secret'] }),
    ])
    expect(first).toMatch(/^[0-9a-f]{64}$/)
    expect(second).toBe(first)
    expect(otherSecret).not.toBe(first)
    // The salt comes from the key: the same password under two keys looks unrelated.
    expect(otherKey).not.toBe(first)
  })
})
