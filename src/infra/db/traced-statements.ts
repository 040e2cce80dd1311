import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import type { EngineTraits } from './engine/traits.js'
import { type StatementLayer, watched } from './instrumentation.js'

const tracer = trace.getTracer('todo-member-api/database')

/** OpenTelemetry's `db.system.name` for each database. */
const SYSTEMS = { sqlite: 'sqlite', postgres: 'postgresql' } as const

/** The statement's first keyword (SELECT, INSERT, …): the span's name. */
function operationOf(sql: string): string {
  return /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY'
}

/**
 * Every statement as a CLIENT span under the request's span, with the SQL text as
 * written: values travel as parameters and are never recorded, so no personal data or
 * password hash reaches a span. A failure is marked with its error type only, not its
 * message (a unique violation's message names the value).
 */
export function tracingStatements(engine: EngineTraits): StatementLayer {
  const system = SYSTEMS[engine.kind]
  return (sql, _parameters, run) => {
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
      (span) =>
        watched(run, {
          settled: (failed, error) => {
            if (failed) {
              span.setStatus({ code: SpanStatusCode.ERROR })
              span.setAttribute('error.type', (error as { code?: string }).code ?? 'error')
            }
            span.end()
          },
        }),
    )
  }
}
