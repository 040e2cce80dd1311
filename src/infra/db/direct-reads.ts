import type { Kysely } from 'kysely'

/**
 * Runs a read statement outside Kysely and answers its rows (SQLite: at once; PostgreSQL:
 * a promise), or answers undefined when the statement has to take Kysely's path after
 * all (on SQLite, while a transaction holds or awaits the one connection).
 */
export type DirectRead = (
  sql: string,
  parameters: readonly unknown[],
) => unknown[] | Promise<unknown[]> | undefined

/** Keyed by the instance itself: its schema type plays no part. */
const directReads = new WeakMap<object, DirectRead>()

/**
 * A query through Kysely reaches the driver through a chain of promises (connection
 * provider, driver, the dialect's wrappers, a mutex on SQLite): for a lookup by key that
 * chain costs about as much as the lookup itself. A database registers here how to run
 * a read without it, and precompiled.ts runs its statements that way.
 */
export function allowDirectReads<Schema>(db: Kysely<Schema>, read: DirectRead): void {
  directReads.set(db, read)
}

/** The direct reads of exactly this instance: never of a transaction made from it. */
export function directReadsOf<Schema>(db: Kysely<Schema>): DirectRead | undefined {
  return directReads.get(db)
}
