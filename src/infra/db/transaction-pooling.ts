import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely'
import type pg from 'pg'
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
export function settingsInEveryTransaction(pool: pg.Pool, settings: SessionSettings): PostgresPool {
  const statusOf = new WeakMap<pg.PoolClient, TransactionStatus>()
  pool.on('connect', (client) => {
    statusOf.set(client, 'I')
    ;(client as unknown as ClientWithConnection).connection.on('readyForQuery', ({ status }) =>
      statusOf.set(client, status),
    )
  })
  const withSettings = setLocally(settings)

  async function query<R>(
    client: pg.PoolClient,
    text: string,
    parameters: readonly unknown[],
  ): Promise<PostgresQueryResult<R>> {
    const run = () =>
      client.query(text, [...parameters]) as unknown as Promise<PostgresQueryResult<R>>
    if (statusOf.get(client) !== 'I') return run()
    if (OPENS_TRANSACTION.test(text) && parameters.length === 0) {
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

  return {
    connect: async (): Promise<PostgresPoolClient> => {
      const client = await pool.connect()
      return {
        query: ((text: string | object, parameters: readonly unknown[]) =>
          typeof text === 'string'
            ? query(client, text, parameters)
            : // A cursor (Kysely's stream, unused by the service) keeps its server
              // connection until it ends; only a transaction around it gets the settings.
              client.query(text as never)) as PostgresPoolClient['query'],
        release: () => client.release(),
      }
    },
    end: () => pool.end(),
  }
}
