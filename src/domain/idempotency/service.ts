import { createHash } from 'node:crypto'
import type { WorkAdmission } from '../common/admission.js'
import { DomainError } from '../common/errors.js'
import {
  type IdempotencyRecord,
  KEY_LIFETIME_MS,
  PROCESSING_LEASE_MS,
  type StoredOutcome,
} from './model.js'
import type { IdempotencyRepository } from './repository.js'

/** What keeping an outcome needs of a unit of work: the keys' repository in the transaction. */
export interface IdempotencyScope {
  readonly idempotency: IdempotencyRepository
}

/** The key was first used with another request (another method, path or body). */
export class IdempotencyKeyReusedError extends DomainError {
  constructor() {
    super('the Idempotency-Key was first used with another request')
  }
}

/** The first request with the key has not finished yet. */
export class IdempotencyKeyInFlightError extends DomainError {
  constructor() {
    super('the first request with the Idempotency-Key is still being processed')
  }
}

/**
 * The request's creation was rolled back because its claim on the key is gone: it
 * outlived its lease and a retry took the key over, whose outcome is the one kept.
 */
export class IdempotencyClaimLostError extends IdempotencyKeyInFlightError {}

/** What makes two requests with one key "the same". */
export interface RequestDescription {
  /** Method, target and body, each secret value (a password) replaced by a placeholder. */
  readonly text: string
  /** The secret values, in the order of their placeholders; usually none. */
  readonly secrets: readonly unknown[]
}

/** A slow, deterministic hash (argon2id): `secret` under `salt`, raw bytes. */
export type SlowHash = (secret: string, salt: Uint8Array) => Promise<Uint8Array>

/** Process the request (the key is held since `claimedAt`), or answer the stored outcome. */
export type Admission =
  | { readonly kind: 'process'; readonly claimedAt: Date }
  | { readonly kind: 'replay'; readonly outcome: StoredOutcome }

/** A claim can lose to a concurrent one, which can then expire or be released: bounded retries. */
const CLAIM_ATTEMPTS = 5

/** Salts the secrets' hash with the key: one label, so every instance computes the same. */
const SECRET_SALT_LABEL = 'todo-member-api idempotency secrets v1\0'

/**
 * Idempotency-Key (decisions §7): the first request with a key is processed and its
 * outcome stored for 24 hours; the same request again gets that outcome and changes
 * nothing; another request with the key, or the same one while the first is still
 * running, is refused.
 */
export class IdempotencyService {
  readonly #repository: IdempotencyRepository
  readonly #now: () => Date
  readonly #slowHash: SlowHash
  readonly #hashing: WorkAdmission

  constructor(dependencies: {
    repository: IdempotencyRepository
    now: () => Date
    /** Hashes the secrets of a request into its fingerprint (see `fingerprint`). */
    slowHash: SlowHash
    /** The slow hash runs within the password hashes' limits (decisions §9). */
    hashing: WorkAdmission
  }) {
    this.#repository = dependencies.repository
    this.#now = dependencies.now
    this.#slowHash = dependencies.slowHash
    this.#hashing = dependencies.hashing
  }

  /** Whether to process the request now (the key is then held) or answer its stored outcome. */
  async admit(key: string, request: RequestDescription, client?: string): Promise<Admission> {
    const requestHash = await this.fingerprint(key, request, client)
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
      const now = this.#now()
      if (await this.#repository.claim(key, requestHash, now)) {
        return { kind: 'process', claimedAt: now }
      }
      const record = await this.#repository.find(key)
      if (record === undefined) continue
      if (this.#isStale(record, now)) {
        await this.#repository.discard(key, record.createdAt)
        continue
      }
      if (record.requestHash !== requestHash) throw new IdempotencyKeyReusedError()
      if (record.outcome === undefined) throw new IdempotencyKeyInFlightError()
      return { kind: 'replay', outcome: record.outcome }
    }
    throw new IdempotencyKeyInFlightError()
  }

  /**
   * SHA-256 over the request's text and, when it carries secrets, their argon2id hash.
   * The fingerprint is kept a day next to the answer. A fast hash over a password
   * would let anyone reading the table test guesses at SHA-256 speed, undoing the
   * member's argon2id PHC hash; leaving the password out would replay a request with
   * another password as if it were the same one. A slow hash with the cost of the
   * password storage makes a guess cost what it costs against the PHC hash. Its salt
   * comes from the key, not from chance or a secret setting, so that every instance
   * computes the same fingerprint for the same request; one key's rows say nothing
   * about another's. Only requests with a key and a secret pay the extra hash.
   */
  async fingerprint(key: string, request: RequestDescription, client?: string): Promise<string> {
    const hash = createHash('sha256').update(request.text)
    if (request.secrets.length > 0) {
      const salt = createHash('sha256').update(SECRET_SALT_LABEL).update(key).digest()
      hash.update('\n').update(
        await this.#hashing.run(() => this.#slowHash(JSON.stringify(request.secrets), salt), {
          client,
        }),
      )
    }
    return hash.digest('hex')
  }

  /** Stores the outcome of a request `admit` let through at `claimedAt`, after the fact. */
  async complete(key: string, claimedAt: Date, outcome: StoredOutcome): Promise<void> {
    await this.#repository.complete(key, claimedAt, outcome)
  }

  /**
   * Stores the outcome in the unit of work that creates the resource, so that both
   * commit or neither: a crash can no longer leave a created resource behind a key
   * that a retry would process again. When the claim is gone, throws to roll the
   * creation back (the retry that took the key over creates it).
   */
  async completeIn(
    scope: IdempotencyScope,
    key: string,
    claimedAt: Date,
    outcome: StoredOutcome,
  ): Promise<void> {
    if (!(await scope.idempotency.complete(key, claimedAt, outcome))) {
      throw new IdempotencyClaimLostError()
    }
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
