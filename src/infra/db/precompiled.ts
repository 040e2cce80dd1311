import type { Compilable, Kysely } from 'kysely'

/**
 * Kysely builds and compiles a query on every call. A lookup by key runs thousands of
 * times a second with the same SQL, so it is compiled once, with stand-in values, and
 * run with the real ones, given in the same order.
 */
export function precompiled<Schema, Row>(
  db: Kysely<Schema>,
  query: Compilable<Row>,
): (...parameters: unknown[]) => Promise<Row[]> {
  const compiled = query.compile()
  return async (...parameters) => (await db.executeQuery<Row>({ ...compiled, parameters })).rows
}
