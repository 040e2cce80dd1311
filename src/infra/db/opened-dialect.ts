import type { Dialect } from 'kysely'
import type { ImmediateRead } from './immediate-reads.js'

export interface PoolStats {
  readonly total: number
  readonly idle: number
  /** Queries waiting for a free connection. */
  readonly waiting: number
}

/** A driver made ready by sqlite.ts or postgres.ts, for create-database.ts to wrap. */
export interface OpenedDialect {
  readonly dialect: Dialect
  /** Connection pool figures (PostgreSQL); SQLite has one connection and no pool. */
  readonly poolStats: () => PoolStats | undefined
  /** Resolves when the database answers a trivial query. */
  readonly ping: () => Promise<void>
  /** Reads run at once while the connection is free (SQLite), when nothing watches queries. */
  readonly readNow?: ImmediateRead
}
