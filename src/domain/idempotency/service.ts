import { DomainError } from '../common/errors.js'
import {
  type IdempotencyRecord,
  KEY_LIFETIME_MS,
  PROCESSING_LEASE_MS,
  type StoredOutcome,
} from './model.js'
import type { IdempotencyRepository } from './repository.js'

/** The key was first used with another request (another method, path or body). */
export class IdempotencyKeyReusedError extends DomainError {
  constructor() {
    super('e.ex.fw.7008')
  }
}

/** The first request with the key has not finished yet. */
export class IdempotencyKeyInFlightError extends DomainError {
  constructor() {
    super('e.ex.fw.8003')
  }
}

/** Process the request (the key is held since `claimedAt`), or answer the stored outcome. */
export type Admission =
  | { readonly kind: 'process'; readonly claimedAt: Date }
  | { readonly kind: 'replay'; readonly outcome: StoredOutcome }

/** A claim can lose to a concurrent one, which can then expire or be released: bounded retries. */
const CLAIM_ATTEMPTS = 5

/**
 * Idempotency-Key (decisions §7): the first request with a key is processed and its
 * outcome stored for 24 hours; the same request again gets that outcome and changes
 * nothing; another request with the key, or the same one while the first is still
 * running, is refused.
 */
export class IdempotencyService {
  readonly #repository: IdempotencyRepository
  readonly #now: () => Date

  constructor(dependencies: { repository: IdempotencyRepository; now: () => Date }) {
    this.#repository = dependencies.repository
    this.#now = dependencies.now
  }

  /** Whether to process the request now (the key is then held) or answer its stored outcome. */
  async admit(key: string, requestHash: string): Promise<Admission> {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
      const now = this.#now()
      if (await this.#repository.claim(key, requestHash, now)) {
        return { kind: 'process', claimedAt: now }
      }
      const record = await this.#repository.find(key)
      if (record === undefined) continue
      if (this.#isStale(record, now)) {
        await this.#repository.release(key, record.createdAt)
        continue
      }
      if (record.requestHash !== requestHash) throw new IdempotencyKeyReusedError()
      if (record.outcome === undefined) throw new IdempotencyKeyInFlightError()
      return { kind: 'replay', outcome: record.outcome }
    }
    throw new IdempotencyKeyInFlightError()
  }

  /** Stores the outcome of a request `admit` let through at `claimedAt`. */
  complete(key: string, claimedAt: Date, outcome: StoredOutcome): Promise<void> {
    return this.#repository.complete(key, claimedAt, outcome)
  }

  /** Frees the key of a request that failed on our side, so that a retry is processed. */
  release(key: string, claimedAt: Date): Promise<void> {
    return this.#repository.release(key, claimedAt)
  }

  /** Deletes the keys older than their lifetime; how many. */
  purgeExpired(): Promise<number> {
    return this.#repository.deleteCreatedBefore(new Date(this.#now().getTime() - KEY_LIFETIME_MS))
  }

  #isStale(record: IdempotencyRecord, now: Date): boolean {
    const age = now.getTime() - record.createdAt.getTime()
    return age >= KEY_LIFETIME_MS || (record.outcome === undefined && age >= PROCESSING_LEASE_MS)
  }
}
