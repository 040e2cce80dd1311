import type { Compilable, CompiledQuery, Kysely } from 'kysely'
import type { Outcome } from './instrumentation.js'

/**
 * A compiled query, run with the values given, in the order of its stand-ins: its rows at
 * once when SQLite reads directly (no promise made), else a promise of them.
 */
export interface Precompiled<Row, Parameters extends unknown[] = unknown[]> {
  (...parameters: Parameters): Outcome<Row[]>
  /**
   * The same compiled query run by `db` (a transaction, the long reads' connections),
   * always through Kysely: nothing is built or compiled again.
   */
  on<Schema>(db: Kysely<Schema>): Precompiled<Row, Parameters>
}

/**
 * Runs a read outside Kysely's connection machinery, through the database's statement
 * layers (create-database.ts), or answers undefined when it must take Kysely's path.
 */
export type DirectRead = (
  sql: string,
  parameters: readonly unknown[],
  atMostOne: boolean,
) => Outcome<unknown[]> | undefined

/**
 * The SQL of one database's precompiled statements, each with the name it is prepared
 * under on PostgreSQL (postgres/named-statements.ts): a few fixed texts, never unbounded.
 */
export class StatementNames {
  readonly #names = new Map<string, string>()

  nameOf(sql: string): string | undefined {
    return this.#names.get(sql)
  }

  add(sql: string): void {
    if (!this.#names.has(sql)) this.#names.set(sql, `hot_${this.#names.size + 1}`)
  }
}

/** How a query is precompiled. */
export interface PrecompileOptions {
  /** It answers at most one row (a lookup by a unique key). */
  readonly atMostOne?: boolean
}

function bound<Schema, Row, Parameters extends unknown[]>(
  db: Kysely<Schema>,
  compiled: CompiledQuery<Row>,
  readDirectly: DirectRead | undefined,
  atMostOne: boolean,
): Precompiled<Row, Parameters> {
  const run = (...parameters: Parameters): Outcome<Row[]> => {
    const direct = readDirectly?.(compiled.sql, parameters, atMostOne)
    if (direct !== undefined) return direct as Outcome<Row[]>
    return db.executeQuery<Row>({ ...compiled, parameters }).then((result) => result.rows)
  }
  return Object.assign(run, {
    on: <Other>(other: Kysely<Other>) =>
      bound<Other, Row, Parameters>(other, compiled, undefined, atMostOne),
  })
}

/**
 * Kysely builds and compiles a query on every call. A lookup by key runs thousands of
 * times a second with the same SQL (and a create's insert, hundreds), so it is compiled
 * once, with stand-in values, and run with the real ones, given in the same order:
 * directly where the database allows it (engine/traits.ts, DirectReads), through Kysely on `db`
 * otherwise. On PostgreSQL it is also a named (prepared) statement, unless
 * DB_PREPARED_STATEMENTS says otherwise.
 */
export type Precompile = <Row, Parameters extends unknown[] = unknown[]>(
  query: Compilable<Row>,
  options?: PrecompileOptions,
) => Precompiled<Row, Parameters>

/** How one database precompiles: its names, its main connections, its direct reads. */
export function precompiler<Schema>(
  names: StatementNames,
  db: Kysely<Schema>,
  readDirectly: DirectRead,
): Precompile {
  return <Row, Parameters extends unknown[] = unknown[]>(
    query: Compilable<Row>,
    { atMostOne = false }: PrecompileOptions = {},
  ) => {
    const compiled = query.compile()
    names.add(compiled.sql)
    return bound<Schema, Row, Parameters>(db, compiled, readDirectly, atMostOne)
  }
}
