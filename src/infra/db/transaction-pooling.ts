import type { PostgresPool, PostgresQueryResult } from 'kysely'
import type pg from 'pg'
import { poolRunning, type StatementRunner } from './named-statements.js'
import { type SessionSettings, setLocally } from './session-settings.js'

/** A statement that opens a transaction, as Kysely and the migration lock write them. */
const OPENS_TRANSACTION = /^\s*(begin|start\s+transaction)\b/i

/** The server's transaction status after each statement: I idle, T in one, E failed one. */
type TransactionStatus = 'I' | 'T' | 'E'

interface ReadyForQuery {
  readonly status: TransactionStatus
}

/** pg's protocol connection under a client; it reports every ReadyForQuery message. */
interface ClientWithConnection {
  readonly connection: {
    on(event: 'readyForQuery', listener: (message: ReadyForQuery) => void): void
  }
}

/**
 * Behind a pooler in transaction mode (PgBouncer's `pool_mode = transaction`) a server
 * session belongs to the client for one transaction only: startup parameters such as
 * `statement_timeout` are refused, and a SET would leak to whichever client gets that
 * server connection next. So every transaction starts with its settings as SET LOCAL,
 * and a statement sent outside a transaction gets one of its own. That costs two round
 * trips per lone statement, which is why it is a setting (DB_POOLER) and not always on.
 *
 * Whether a transaction is open is the server's word (ReadyForQuery), not a guess from
 * the SQL: only the statement that opens one is recognised by its text, to add the settings.
 */
export function settingsInEveryTransaction(
  pool: pg.Pool,
  settings: SessionSettings,
  /** How each statement of the service itself is sent (named-statements.ts). */
  runStatement: StatementRunner,
): PostgresPool {
  const statusOf = new WeakMap<pg.ClientBase, TransactionStatus>()
  pool.on('connect', (client) => {
    statusOf.set(client, 'I')
    ;(client as unknown as ClientWithConnection).connection.on('readyForQuery', ({ status }) =>
      statusOf.set(client, status),
    )
  })
  const withSettings = setLocally(settings)

  const inTransactions: StatementRunner = async <R>(
    client: pg.ClientBase,
    text: string,
    values: unknown[],
  ): Promise<PostgresQueryResult<R>> => {
    const run = () => runStatement<R>(client, text, values)
    if (statusOf.get(client) !== 'I') return run()
    if (OPENS_TRANSACTION.test(text) && values.length === 0) {
      // One round trip: the simple protocol runs both statements, and answers with both.
      const [opened] = (await client.query(`${text}; ${withSettings}`)) as unknown as [
        PostgresQueryResult<R>,
      ]
      return opened
    }
    await client.query(`begin; ${withSettings}`)
    try {
      const result = await run()
      await client.query('commit')
      return result
    } catch (error) {
      if (statusOf.get(client) !== 'I') await client.query('rollback').catch(() => undefined)
      throw error
    }
  }
  return poolRunning(pool, inTransactions)
}
