import { type Kysely, type Migration, sql } from 'kysely'
import type { DialectProfile } from '../dialect.js'

/** The outcomes of POST requests sent with an Idempotency-Key (decisions §7). */
export function createIdempotencyKey(profile: DialectProfile): Migration {
  const timestamp = sql.raw(profile.timestampType)
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('idempotency_key')
        .addColumn('idempotency_key', profile.text(255), (column) => column.primaryKey())
        .addColumn('request_hash', profile.text(64), (column) => column.notNull())
        .addColumn('created_at', timestamp, (column) => column.notNull())
        // Null while the first request is being processed.
        .addColumn('status_code', 'integer')
        .addColumn('response_body', 'text')
        .addColumn('location', 'text')
        .addColumn('etag', profile.text(64))
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
