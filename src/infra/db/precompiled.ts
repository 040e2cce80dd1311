import type { Compilable, CompiledQuery, Kysely } from 'kysely'

/** A compiled query, run with the values given, in the order of its stand-ins. */
export interface Precompiled<Row, Parameters extends unknown[] = unknown[]> {
  (...parameters: Parameters): Promise<Row[]>
  /** The same compiled query run by `db` (a transaction): nothing is built or compiled again. */
  on<Schema>(db: Kysely<Schema>): Precompiled<Row, Parameters>
}

function bound<Schema, Row, Parameters extends unknown[]>(
  db: Kysely<Schema>,
  compiled: CompiledQuery<Row>,
): Precompiled<Row, Parameters> {
  const run = async (...parameters: Parameters) =>
    (await db.executeQuery<Row>({ ...compiled, parameters })).rows
  return Object.assign(run, {
    on: <Other>(other: Kysely<Other>) => bound<Other, Row, Parameters>(other, compiled),
  })
}

/**
 * Kysely builds and compiles a query on every call. A lookup by key runs thousands of
 * times a second with the same SQL, so it is compiled once, with stand-in values, and
 * run with the real ones, given in the same order.
 */
export function precompiled<Schema, Row, Parameters extends unknown[] = unknown[]>(
  db: Kysely<Schema>,
  query: Compilable<Row>,
): Precompiled<Row, Parameters> {
  return bound(db, query.compile())
}
