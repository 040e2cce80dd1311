import type { Kysely } from 'kysely'

/** Where the migrations run while the lock is held (migrate.ts runs them). */
export interface MigrationSession<DB> {
  /** The connection the migrations' statements are sent on. */
  readonly db: Kysely<DB>
  /**
   * Whether the lock is itself one transaction that holds every migration (SQLite's write
   * lock): a migration that asks to run outside a transaction runs in it too. Otherwise
   * (PostgreSQL) each migration gets a transaction of its own unless it asks for none.
   */
  readonly inOneTransaction: boolean
  /** Throws if the lock was lost (its connection closed): another instance may migrate now. */
  stillHeld(): void
}

/**
 * How instances starting together on one database take turns: each applies the
 * migrations still pending when its turn comes, so each migration is applied once.
 * SQLite's is its write lock (sqlite/sqlite.ts); PostgreSQL's an advisory lock held by a
 * transaction of a connection of its own (postgres/migration-lock.ts).
 */
export interface MigrationLock {
  /** Runs `migrate` holding the lock. `db`: the service's own connections, which SQLite uses. */
  hold<DB, T>(db: Kysely<DB>, migrate: (session: MigrationSession<DB>) => Promise<T>): Promise<T>
}
