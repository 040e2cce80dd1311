import type { Dialect } from 'kysely'
import type { DirectRead } from './direct-reads.js'

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
  /** Reads without Kysely's connection machinery (direct-reads.ts), when nothing watches queries. */
  readonly readDirectly?: DirectRead | undefined
}
