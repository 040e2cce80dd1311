import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import type { Dialect, QueryResult } from 'kysely'
import type { DialectProfile } from './dialect.js'
import { wrappedDialect } from './wrapped-dialect.js'

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

  const traced = <R>(sql: string, run: () => Promise<QueryResult<R>>) => {
    const operation = operationOf(sql)
    return tracer.startActiveSpan(
      operation,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system.name': system,
          'db.operation.name': operation,
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
  }

  return wrappedDialect(dialect, { query: (query, run) => traced(query.sql, run) })
}
