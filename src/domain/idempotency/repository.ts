import type { IdempotencyRecord, StoredOutcome } from './model.js'

export interface IdempotencyRepository {
  /** Stores the key as being processed unless it exists; true when this call stored it. */
  claim(key: string, requestHash: string, now: Date): Promise<boolean>
  find(key: string): Promise<IdempotencyRecord | undefined>
  /**
   * `complete` and `release` act only on the record claimed at `createdAt`: a request
   * that outlived its lease must not touch the claim of the retry that took over.
   */
  complete(key: string, createdAt: Date, outcome: StoredOutcome): Promise<void>
  release(key: string, createdAt: Date): Promise<void>
  /** Deletes every key first used before `cutoff`; how many. */
  deleteCreatedBefore(cutoff: Date): Promise<number>
}
