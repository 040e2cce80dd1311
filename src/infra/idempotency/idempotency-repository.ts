import type { Kysely, Selectable } from 'kysely'
import type { IdempotencyRecord, StoredOutcome } from '../../domain/idempotency/model.js'
import type { IdempotencyRepository } from '../../domain/idempotency/repository.js'
import { type DatabaseSchema, type IdempotencyKeyTable, toDate } from '../db/schema.js'

function toRecord(row: Selectable<IdempotencyKeyTable>): IdempotencyRecord {
  const record = {
    key: row.idempotency_key,
    requestHash: row.request_hash,
    createdAt: toDate(row.created_at),
  }
  if (row.status_code === null) return record
  return {
    ...record,
    outcome: {
      status: Number(row.status_code),
      body: row.response_body ?? '',
      location: row.location,
      etag: row.etag,
    },
  }
}

export class KyselyIdempotencyRepository implements IdempotencyRepository {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /** The same repository on a transaction (it compiles nothing ahead, so this is cheap). */
  inTransaction(trx: Kysely<DatabaseSchema>): KyselyIdempotencyRepository {
    return new KyselyIdempotencyRepository(trx)
  }

  async claim(key: string, requestHash: string, now: Date): Promise<boolean> {
    // The primary key decides between concurrent claims, on every instance alike.
    const result = await this.db
      .insertInto('idempotency_key')
      .values({ idempotency_key: key, request_hash: requestHash, created_at: now.toISOString() })
      .onConflict((conflict) => conflict.column('idempotency_key').doNothing())
      .executeTakeFirst()
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1
  }

  async find(key: string): Promise<IdempotencyRecord | undefined> {
    const row = await this.db
      .selectFrom('idempotency_key')
      .selectAll()
      .where('idempotency_key', '=', key)
      .executeTakeFirst()
    return row && toRecord(row)
  }

  async complete(key: string, createdAt: Date, outcome: StoredOutcome): Promise<boolean> {
    const result = await this.db
      .updateTable('idempotency_key')
      .set({
        status_code: outcome.status,
        response_body: outcome.body,
        location: outcome.location,
        etag: outcome.etag,
      })
      .where('idempotency_key', '=', key)
      .where('created_at', '=', createdAt.toISOString())
      .executeTakeFirst()
    return result.numUpdatedRows > 0n
  }

  async release(key: string, createdAt: Date): Promise<void> {
    await this.#claimedAt(key, createdAt).where('status_code', 'is', null).execute()
  }

  async discard(key: string, createdAt: Date): Promise<void> {
    await this.#claimedAt(key, createdAt).execute()
  }

  #claimedAt(key: string, createdAt: Date) {
    return this.db
      .deleteFrom('idempotency_key')
      .where('idempotency_key', '=', key)
      .where('created_at', '=', createdAt.toISOString())
  }

  async deleteCreatedBefore(cutoff: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('idempotency_key')
      .where('created_at', '<', cutoff.toISOString())
      .executeTakeFirst()
    return Number(result.numDeletedRows)
  }
}
