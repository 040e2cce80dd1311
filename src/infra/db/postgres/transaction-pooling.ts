import type { PostgresPool, PostgresQueryResult } from 'kysely'
import type pg from 'pg'
import { poolRunning, type StatementRunner } from './named-statements.js'
import { type SessionSettings, setLocally } from './session-settings.js'

/** A statement that opens a transaction, as Kysely and the migration lock write them. */
const OPENS_TRANSACTION = /^\s*(begin|start\s+transaction)\b/i

/**
 * A statement that ends the transaction, whether it succeeds or fails: COMMIT (of a
 * failed transaction, a rollback), ROLLBACK, and their synonyms END and ABORT; not
 * ROLLBACK TO a savepoint, which stays in it.
 */
const ENDS_TRANSACTION = /^\s*(commit|end|abort|rollback(?!\s+(transaction\s+|work\s+)?to\b))\b/i

/**
 * A statement that PostgreSQL refuses inside a transaction block, which only the
 * migrations send (index builds that let writes go on, index-changes.ts).
 */
const OUTSIDE_TRANSACTION = /^\s*(create\s+(unique\s+)?index|drop\s+index)\s+concurrently\b/i

/** What Kysely is answered for the BEGIN it sent (it reads nothing of it). */
const OPENED: PostgresQueryResult<never> = { command: 'SELECT', rowCount: 0, rows: [] }

/**
 * Behind a pooler in transaction mode (PgBouncer's `pool_mode = transaction`) a server
 * session belongs to the client for one transaction only: startup parameters such as
 * `statement_timeout` are refused, and a SET would leak to whichever client gets that
 * server connection next. So every transaction starts with its settings as SET LOCAL,
 * and a statement sent outside a transaction gets one of its own (unless it cannot run
 * in one: that goes alone). That costs two round trips per lone statement, which is why
 * it is a setting (DB_POOLER) and not always on.
 *
 * Whether a client is in a transaction is told by the statements it is sent, all of
 * which pass here: the one that opens it and the one that ends it. A statement that
 * fails inside leaves the transaction open (failed) until its ROLLBACK, which Kysely
 * sends; so does the server.
 */
export function settingsInEveryTransaction(
  pool: pg.Pool,
  settings: SessionSettings,
  /** How each statement of the service itself is sent (named-statements.ts). */
  runStatement: StatementRunner,
): PostgresPool {
  const inTransaction = new WeakSet<pg.ClientBase>()
  const withSettings = setLocally(settings)
  const rollback = (client: pg.ClientBase) => client.query('rollback').catch(() => undefined)

  const inTransactions: StatementRunner = async <R>(
    client: pg.ClientBase,
    text: string,
    values: unknown[],
  ): Promise<PostgresQueryResult<R>> => {
    if (inTransaction.has(client)) {
      if (ENDS_TRANSACTION.test(text)) inTransaction.delete(client)
      return runStatement<R>(client, text, values)
    }
    if (OPENS_TRANSACTION.test(text) && values.length === 0) {
      try {
        // One round trip: the simple protocol runs both statements.
        await client.query(`${text}; ${withSettings}`)
      } catch (error) {
        // Kysely rolls back only a transaction that began: none is left open here.
        await rollback(client)
        throw error
      }
      inTransaction.add(client)
      return OPENED
    }
    // It gets no settings, so it names its schema and needs no timeout of its own.
    if (OUTSIDE_TRANSACTION.test(text)) return runStatement<R>(client, text, values)
    await client.query(`begin; ${withSettings}`)
    try {
      const result = await runStatement<R>(client, text, values)
      await client.query('commit')
      return result
    } catch (error) {
      await rollback(client)
      throw error
    }
  }
  return poolRunning(pool, inTransactions)
}
