import type { IdempotencyRecord, StoredOutcome } from './model.js'

export interface IdempotencyRepository {
  /** Stores the key as being processed unless it exists; true when this call stored it. */
  claim(key: string, requestHash: string, now: Date): Promise<boolean>
  find(key: string): Promise<IdempotencyRecord | undefined>
  /**
   * `complete`, `release` and `discard` act only on the record claimed at `createdAt`:
   * a request that outlived its lease must not touch the claim of the retry that took
   * over. `complete` tells whether it stored the outcome (false: the claim is gone).
   */
  complete(key: string, createdAt: Date, outcome: StoredOutcome): Promise<boolean>
  /**
   * Deletes the claim only while it has no outcome: when a commit failed ambiguously
   * (the database committed, the call still failed), the stored answer stays.
   */
  release(key: string, createdAt: Date): Promise<void>
  /** Deletes the record whatever its state (it expired). */
  discard(key: string, createdAt: Date): Promise<void>
  /** Deletes every key first used before `cutoff`; how many. */
  deleteCreatedBefore(cutoff: Date): Promise<number>
}
