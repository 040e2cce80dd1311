import type { Kysely } from 'kysely'

/**
 * Runs a read statement at once, synchronously, and answers its rows; or answers
 * undefined when the statement has to wait its turn on the connection (or is no read).
 */
export type ImmediateRead = (sql: string, parameters: readonly unknown[]) => unknown[] | undefined

/** Keyed by the instance itself: its schema type plays no part. */
const immediateReads = new WeakMap<object, ImmediateRead>()

/**
 * better-sqlite3 answers synchronously, yet a query through Kysely takes its connection
 * through a chain of promises: for a lookup by key that chain costs about as much as the
 * lookup itself. A database that can say when its connection is free registers here, and
 * precompiled.ts runs its statements there directly while it is.
 */
export function allowImmediateReads<Schema>(db: Kysely<Schema>, read: ImmediateRead): void {
  immediateReads.set(db, read)
}

/** The immediate reads of exactly this instance: never of a transaction made from it. */
export function immediateReadsOf<Schema>(db: Kysely<Schema>): ImmediateRead | undefined {
  return immediateReads.get(db)
}
