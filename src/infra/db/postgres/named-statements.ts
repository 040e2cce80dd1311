import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely'
import type pg from 'pg'

/** Runs one statement on a pg client; how it is sent (named or not) is the runner's choice. */
export type StatementRunner = <R>(
  client: pg.ClientBase,
  text: string,
  values: unknown[],
) => Promise<PostgresQueryResult<R>>

/** Every statement unnamed: parsed and planned by the server each time. */
export const unnamed: StatementRunner = (client, text, values) =>
  client.query(text, values) as never

/** The names of a database's precompiled statements (precompiled.ts); undefined for other SQL. */
export interface StatementNames {
  nameOf(sql: string): string | undefined
}

/**
 * The precompiled statements named: pg prepares each once per connection and then sends
 * only its name and values, so PostgreSQL neither parses nor plans it again. Any other
 * SQL stays unnamed, so that a connection never holds an unbounded number of prepared
 * statements. A server connection must stay the client's across statements for that:
 * true directly and behind a session pooler, not behind a transaction pooler that does
 * not track prepared statements (PgBouncer before 1.21, or max_prepared_statements = 0).
 */
export function naming(names: StatementNames): StatementRunner {
  return (client, text, values) => client.query(namedStatement(names, text, values)) as never
}

/** One statement as pg sends it: named when `names` names it, unnamed otherwise. */
export function namedStatement(
  names: StatementNames | undefined,
  text: string,
  values: unknown[],
): pg.QueryConfig {
  const name = names?.nameOf(text)
  return name === undefined ? { text, values } : { name, text, values }
}

/** Kysely's pool, each client's statements sent by `run`. */
export function poolRunning(pool: pg.Pool, run: StatementRunner): PostgresPool {
  return {
    connect: async (): Promise<PostgresPoolClient> => {
      const client = await pool.connect()
      return {
        query: ((text: string | object, parameters: readonly unknown[]) =>
          typeof text === 'string'
            ? run(client, text, [...parameters])
            : // A cursor (Kysely's stream, unused by the service) is pg's own object.
              client.query(text as never)) as PostgresPoolClient['query'],
        release: () => client.release(),
      }
    },
    end: () => pool.end(),
  }
}
