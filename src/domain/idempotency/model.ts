/** What a request carrying an Idempotency-Key produced, kept to be answered again. */
export interface StoredOutcome {
  readonly status: number
  readonly body: string
  readonly location: string | null
  readonly etag: string | null
}

/** A key as stored: its request's fingerprint, when it was first used, and its outcome once known. */
export interface IdempotencyRecord {
  readonly key: string
  readonly requestHash: string
  readonly createdAt: Date
  /** Absent while the first request with this key is being processed. */
  readonly outcome?: StoredOutcome
}

/** How long a key and its outcome are kept (decisions §7). */
export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000

/**
 * How long a key stays "being processed" at most. A request that held it longer was cut
 * off (its process crashed or was killed); the key is then free again, so a retry of
 * that request is processed instead of being refused for the rest of the day.
 */
export const PROCESSING_LEASE_MS = 60 * 1000
