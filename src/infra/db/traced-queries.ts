import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely'
import type { DialectProfile } from './dialect.js'

const tracer = trace.getTracer('todo-member-api/database')

/** OpenTelemetry's `db.system.name` for each database. */
const SYSTEMS = { sqlite: 'sqlite', postgres: 'postgresql' } as const

/** The statement's first keyword (SELECT, INSERT, BEGIN, …): the span's name. */
function operationOf(sql: string): string {
  return /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY'
}

/**
 * Wraps a Kysely dialect so that every statement is a CLIENT span under the request's
 * span, with the SQL text as written: values travel as parameters and are never
 * recorded, so no personal data or password hash reaches a span. A failure is marked
 * with its error type only, not its message (a unique violation's message names the value).
 */
export function tracingQueries(dialect: Dialect, profile: DialectProfile): Dialect {
  const system = SYSTEMS[profile.kind]

  const traced = <R>(sql: string, run: () => Promise<QueryResult<R>>) =>
    tracer.startActiveSpan(
      operationOf(sql),
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system.name': system,
          'db.operation.name': operationOf(sql),
          'db.query.text': sql,
        },
      },
      async (span) => {
        try {
          return await run()
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR })
          span.setAttribute('error.type', (error as { code?: string }).code ?? 'error')
          throw error
        } finally {
          span.end()
        }
      },
    )

  class TracedConnection implements DatabaseConnection {
    constructor(readonly inner: DatabaseConnection) {}
    executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      return traced(query.sql, () => this.inner.executeQuery<R>(query))
    }
    streamQuery<R>(
      query: CompiledQuery,
      chunkSize?: number,
    ): AsyncIterableIterator<QueryResult<R>> {
      return this.inner.streamQuery<R>(query, chunkSize)
    }
  }

  const unwrap = (connection: DatabaseConnection) =>
    connection instanceof TracedConnection ? connection.inner : connection

  const driver = (inner: Driver): Driver => ({
    init: () => inner.init(),
    acquireConnection: async () => new TracedConnection(await inner.acquireConnection()),
    beginTransaction: (connection, settings) =>
      inner.beginTransaction(unwrap(connection), settings),
    commitTransaction: (connection) => inner.commitTransaction(unwrap(connection)),
    rollbackTransaction: (connection) => inner.rollbackTransaction(unwrap(connection)),
    releaseConnection: (connection) => inner.releaseConnection(unwrap(connection)),
    destroy: () => inner.destroy(),
  })

  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => driver(dialect.createDriver()),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  }
}
