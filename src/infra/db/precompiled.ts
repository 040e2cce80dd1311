import type { Compilable, CompiledQuery, Kysely } from 'kysely'
import { directReadsOf } from './direct-reads.js'

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
  const readDirectly = directReadsOf(db)
  const run = async (...parameters: Parameters): Promise<Row[]> => {
    const direct = readDirectly?.(compiled.sql, parameters)
    if (direct !== undefined) return direct as Row[] | Promise<Row[]>
    return (await db.executeQuery<Row>({ ...compiled, parameters })).rows
  }
  return Object.assign(run, {
    on: <Other>(other: Kysely<Other>) => bound<Other, Row, Parameters>(other, compiled),
  })
}

/** Every precompiled statement's SQL, with the name it is prepared under on PostgreSQL. */
const HOT_STATEMENTS = new Map<string, string>()

/**
 * The name under which `sql` is prepared once per PostgreSQL connection, if it is one of
 * the precompiled (hot) statements; undefined for any other SQL, which stays unnamed so
 * that a connection never holds an unbounded number of prepared statements.
 */
export function hotStatementName(sql: string): string | undefined {
  return HOT_STATEMENTS.get(sql)
}

/**
 * Kysely builds and compiles a query on every call. A lookup by key runs thousands of
 * times a second with the same SQL, so it is compiled once, with stand-in values, and
 * run with the real ones, given in the same order, outside Kysely's connection machinery
 * where the database allows it (direct-reads.ts). On PostgreSQL it is also a named
 * (prepared) statement, unless DB_PREPARED_STATEMENTS says otherwise (postgres.ts).
 */
export function precompiled<Schema, Row, Parameters extends unknown[] = unknown[]>(
  db: Kysely<Schema>,
  query: Compilable<Row>,
): Precompiled<Row, Parameters> {
  const compiled = query.compile()
  if (!HOT_STATEMENTS.has(compiled.sql)) {
    HOT_STATEMENTS.set(compiled.sql, `hot_${HOT_STATEMENTS.size + 1}`)
  }
  return bound(db, compiled)
}
