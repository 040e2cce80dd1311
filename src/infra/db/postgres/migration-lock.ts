import { setTimeout as sleep } from 'node:timers/promises'
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely'
import type pg from 'pg'
import type { MigrationLock, MigrationSession } from '../engine/migration-lock.js'
import { poolRunning, unnamed } from './named-statements.js'
import type { SessionSettings } from './session-settings.js'
import { settingsInEveryTransaction } from './transaction-pooling.js'

/**
 * The advisory lock's key: this constant and the hash of the schema migrated
 * (`hashtext(current_schema())`). A schema's migrations are its own, so instances of the
 * service in other schemas of one database never wait for each other; those migrating
 * one schema take turns.
 */
export const MIGRATION_LOCK_CLASS = 1_853_314_791

/**
 * The statement that asks for the lock of `schema` (a quoted literal), without waiting.
 * Sent as a simple query, never with parameters: a parameter's unnamed portal would stay
 * open in the idle lock transaction, keep its snapshot, and so make every concurrent
 * index build of the database wait for the very transaction that lets it run.
 */
function tryMigrationLock(quotedSchema: string): string {
  return `select pg_try_advisory_xact_lock(${MIGRATION_LOCK_CLASS}, hashtext(${quotedSchema})) as locked`
}

/** How long an instance waits before asking again for the lock another one holds. */
const RETRY_MS = 200

/**
 * The lock's transaction stays open, idle, while the migrations run on another
 * connection: the server must not end it for that (idle_in_transaction_session_timeout).
 */
const OPEN_LOCK_TRANSACTION = `begin; select set_config('idle_in_transaction_session_timeout', '0', true)`

export interface MigrationConnectionOptions {
  /** The pg module, loaded by postgres.ts. */
  readonly pg: typeof pg
  /** The server's URL; behind a transaction pooler, without its `options`. */
  readonly url: string
  /**
   * Behind a transaction pooler, the settings each transaction sets (the URL's `-c`
   * options); undefined when the connection is direct (or through a session pooler).
   */
  readonly pooledSettings: SessionSettings | undefined
  /**
   * Longest wait for a connection (DB_TIMEOUT). The lock is waited for as long as another
   * instance holds it, migrating: its connection, and the lock, end with it.
   */
  readonly connectTimeoutMs: number
  readonly onConnectionError?: (error: Error) => void
}

/**
 * PostgreSQL's migration lock: a transaction-scoped advisory lock, taken by a transaction
 * that a connection of its own keeps open for the whole run, while the migrations run on
 * a second connection: each in a transaction of its own, or outside any (CREATE INDEX
 * CONCURRENTLY, which cannot run in one and must not, so that writes go on).
 *
 * - Not a session lock (pg_advisory_lock): behind a transaction pooler (DB_POOLER=
 *   transaction) a session belongs to a client for one transaction only, so a session
 *   lock would stay with a server connection that the pooler hands to other clients, and
 *   its unlock might reach another session. An open transaction keeps its server
 *   connection, through a pooler as directly; if the instance dies, its connection
 *   closes (the pooler closes the server's, as the transaction was open) and the lock
 *   goes with it. So one design serves both modes and needs no direct URL.
 * - Never waited for in a statement: a CREATE INDEX CONCURRENTLY waits for every
 *   transaction whose snapshot is older than its own to end, and a statement waiting for
 *   the lock holds a snapshot, in a transaction that ends only once it has the lock,
 *   which the build's instance holds until the build ends: a deadlock no server detects.
 *   A waiting instance asks with pg_try_advisory_xact_lock and, refused, ends that
 *   transaction before asking again; the holder's idle transaction holds no snapshot.
 */
export function postgresMigrationLock(options: MigrationConnectionOptions): MigrationLock {
  return {
    async hold<DB, T>(
      db: Kysely<DB>,
      migrate: (session: MigrationSession<DB>) => Promise<T>,
    ): Promise<T> {
      // The service's own connections know the schema (the URL's search_path).
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db)
      const lock = await takeLock(options, rows[0]?.schema ?? 'public')
      try {
        const connection = migrationConnection<DB>(options)
        try {
          return await migrate({
            db: connection,
            inOneTransaction: false,
            stillHeld: lock.stillHeld,
          })
        } finally {
          await connection.destroy()
        }
      } finally {
        await lock.release()
      }
    },
  }
}

async function takeLock(options: MigrationConnectionOptions, schema: string) {
  const client = new options.pg.Client({
    connectionString: options.url,
    connectionTimeoutMillis: options.connectTimeoutMs,
    keepAlive: true,
  })
  let lost: Error | undefined
  // A pg client emits 'error' when its connection dies; unheard, that would end the process.
  client.on('error', (error) => {
    lost = error
    options.onConnectionError?.(error)
  })
  client.on('end', () => {
    lost ??= new Error('the connection closed')
  })
  try {
    await client.connect()
    for (;;) {
      await client.query(OPEN_LOCK_TRANSACTION)
      const { rows } = await client.query<{ locked: boolean }>(
        tryMigrationLock(client.escapeLiteral(schema)),
      )
      if (rows[0]?.locked === true) break
      await client.query('rollback')
      await sleep(RETRY_MS)
    }
  } catch (error) {
    await client.end().catch(() => undefined)
    throw error
  }
  let released = false
  return {
    stillHeld: () => {
      if (lost && !released) {
        throw new Error('The migration lock was lost: its connection closed', { cause: lost })
      }
    },
    release: async () => {
      released = true
      // A lost connection took the lock with it: nothing is left to release.
      await client.query('commit').catch(() => undefined)
      await client.end().catch(() => undefined)
    },
  }
}

/**
 * The migrations' own connection: not the service's pool, whose statement timeout
 * (DB_TIMEOUT) is for requests, where building an index on a big table takes minutes.
 * Directly, the session has no statement timeout; behind a transaction pooler each
 * transaction sets none along with the URL's settings, and a statement that cannot run
 * in a transaction block goes alone (transaction-pooling.ts), naming its schema itself.
 */
function migrationConnection<DB>(options: MigrationConnectionOptions): Kysely<DB> {
  const pool = new options.pg.Pool({
    connectionString: options.url,
    max: 1,
    connectionTimeoutMillis: options.connectTimeoutMs,
    keepAlive: true,
  })
  pool.on('error', (error) => options.onConnectionError?.(error))
  const { pooledSettings } = options
  return new Kysely<DB>({
    dialect: new PostgresDialect({
      pool: pooledSettings
        ? settingsInEveryTransaction(pool, { ...pooledSettings, statement_timeout: '0' }, unnamed)
        : poolRunning(pool, unnamed),
      ...(!pooledSettings && {
        onCreateConnection: async (connection) => {
          await connection.executeQuery(CompiledQuery.raw('set statement_timeout = 0'))
        },
      }),
    }),
  })
}
