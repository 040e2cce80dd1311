import { PostgresDialect, type PostgresPool } from 'kysely'
import type pg from 'pg'
import type { OpenedEngine } from '../engine/traits.js'
import { clientWithAnswerDeadline } from './answer-deadline.js'
import { postgresMigrationLock } from './migration-lock.js'
import {
  namedStatement,
  naming,
  poolRunning,
  type StatementNames,
  unnamed,
} from './named-statements.js'
import { parseServerOptions } from './session-settings.js'
import { settingsInEveryTransaction } from './transaction-pooling.js'

/** How the service reaches PostgreSQL: directly (or a session pooler), or a transaction pooler. */
export type PoolerMode = 'none' | 'transaction'

export interface PostgresOptions {
  readonly url: string
  readonly poolMax: number
  readonly pooler: PoolerMode
  readonly timeoutMs: number
  /** Whether the hot statements are prepared by name (DB_PREPARED_STATEMENTS); see below. */
  readonly namedStatements?: boolean
  /** The precompiled statements' names, asked for each statement sent (precompiled.ts). */
  readonly statementNames: StatementNames
  /** A pooled connection failed (the pool replaces it). */
  readonly onConnectionError?: (error: Error) => void
}

const DATE_OID = 1082

/** How long after the server should have cancelled a statement the client stops waiting for it. */
const ANSWER_GRACE_MS = 250

/** A PostgreSQL `date` stays the `yyyy-MM-dd` text it is, instead of a local-midnight Date. */
function typeParser(types: typeof pg.types) {
  return (oid: number, format?: 'text' | 'binary') => {
    if (oid === DATE_OID) return (value: string) => value
    return format === 'binary' ? types.getTypeParser(oid, 'binary') : types.getTypeParser(oid)
  }
}

/**
 * Behind a transaction pooler: the URL without its `options` (a pooler refuses them as a
 * startup parameter), and the settings each transaction gets instead: the URL's
 * `-c name=value` options and the statement timeout.
 */
function perTransaction(url: string, timeoutMs: number) {
  const withoutOptions = new URL(url)
  const options = withoutOptions.searchParams.get('options') ?? ''
  withoutOptions.searchParams.delete('options')
  return {
    url: withoutOptions.toString(),
    settings: { ...parseServerOptions(options), statement_timeout: String(timeoutMs) },
  }
}

const rowsOf = <R>(result: { rows: R[] }) => result.rows

/** A pool of connections to one PostgreSQL server, directly or through a transaction pooler. */
export async function openPostgres(options: PostgresOptions): Promise<OpenedEngine> {
  // Loaded only when configured: the other driver would only slow the start.
  const { default: pg } = await import('pg')
  const { timeoutMs, onConnectionError } = options
  const pooled =
    options.pooler === 'transaction' ? perTransaction(options.url, timeoutMs) : undefined
  const pool = new pg.Pool({
    connectionString: pooled?.url ?? options.url,
    types: { getTypeParser: typeParser(pg.types) },
    max: options.poolMax,
    // Connecting, or waiting for a free connection.
    connectionTimeoutMillis: timeoutMs,
    // The server cancels a statement past it; the client gives up on one whose answer
    // does not come (a dead network), a little later. A direct connection takes it once,
    // as a startup parameter; behind a transaction pooler every transaction sets it.
    ...(!pooled && { statement_timeout: timeoutMs }),
    Client: clientWithAnswerDeadline(pg.Client, timeoutMs + ANSWER_GRACE_MS),
    keepAlive: true,
    idleTimeoutMillis: 30_000,
  })
  // A connection that dies (server restart, network cut) emits 'error' on its client. The
  // pool listens only while the client is idle; one checked out by a query (Kysely adds no
  // listener) would crash the process. The query itself still fails, and the pool drops
  // the broken client when it is released.
  pool.on('error', (error) => onConnectionError?.(error))
  pool.on('connect', (client) => client.on('error', (error) => onConnectionError?.(error)))
  // Named statements need the same server connection across a client's statements, which
  // a transaction pooler gives only if it tracks them (PgBouncer 1.21+): off there unless
  // DB_PREPARED_STATEMENTS=on says it does.
  const names = (options.namedStatements ?? !pooled) ? options.statementNames : undefined
  const run = names ? naming(names) : unnamed
  const kyselyPool: PostgresPool = pooled
    ? settingsInEveryTransaction(pool, pooled.settings, run)
    : poolRunning(pool, run)
  return {
    dialect: new PostgresDialect({ pool: kyselyPool }),
    // Connections of their own, opened only while migrating (migration-lock.ts).
    migrationLock: postgresMigrationLock({
      pg,
      url: pooled?.url ?? options.url,
      pooledSettings: pooled?.settings,
      connectTimeoutMs: timeoutMs,
      onConnectionError,
    }),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    ping: async () => {
      await pool.query('select 1')
    },
    // Through the same pool as Kysely, named as Kysely's statements are. Directly, pg's
    // own `pool.query` takes and gives back the connection with one promise made; behind
    // a transaction pooler, Kysely's pool wraps the statement in a transaction with its
    // settings.
    directReads: {
      ready: () => true,
      run: pooled
        ? async (sql, parameters) => {
            const client = await kyselyPool.connect()
            try {
              return (await client.query<unknown>(sql, parameters)).rows
            } finally {
              client.release()
            }
          }
        : (sql, parameters) => pool.query(namedStatement(names, sql, [...parameters])).then(rowsOf),
    },
  }
}
