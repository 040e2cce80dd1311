import { type Kysely, type Migration, sql } from 'kysely'
import type { EngineTraits } from '../../db/engine/traits.js'

/** The outcomes of POST requests sent with an Idempotency-Key (decisions §7). */
export function createIdempotencyKey(engine: EngineTraits): Migration {
  const timestamp = sql.raw(engine.timestampType)
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('idempotency_key')
        .addColumn('idempotency_key', engine.text(255), (column) => column.primaryKey())
        .addColumn('request_hash', engine.text(64), (column) => column.notNull())
        .addColumn('created_at', timestamp, (column) => column.notNull())
        // Null while the first request is being processed.
        .addColumn('status_code', 'integer')
        .addColumn('response_body', 'text')
        .addColumn('location', 'text')
        .addColumn('etag', engine.text(64))
        .execute()
      // Expired keys are deleted by age.
      await db.schema
        .createIndex('idempotency_key_created_at_idx')
        .on('idempotency_key')
        .column('created_at')
        .execute()
    },
  }
}
