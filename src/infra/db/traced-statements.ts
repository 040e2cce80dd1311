import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import type { EngineTraits } from './engine/traits.js'
import { type StatementLayer, watched } from './instrumentation.js'

const tracer = trace.getTracer('todo-member-api/database')

/** OpenTelemetry's `db.system.name` for each database. */
const SYSTEMS = { sqlite: 'sqlite', postgres: 'postgresql' } as const

/** What the main part of a WITH statement can be. */
const MAIN_STATEMENTS = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'MERGE', 'VALUES'])

/**
 * The statement's operation (SELECT, INSERT, …), the span's name: its first keyword, or
 * for a WITH its main statement's, the first such keyword outside the parentheses of its
 * common table expressions (the member and credential insert on PostgreSQL is an INSERT).
 */
function operationOf(sql: string): string {
  const first = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY'
  if (first !== 'WITH') return first
  let depth = 0
  for (const [token] of sql.matchAll(/[()]|\w+/g)) {
    if (token === '(') depth += 1
    else if (token === ')') depth -= 1
    else if (depth === 0 && MAIN_STATEMENTS.has(token.toUpperCase())) return token.toUpperCase()
  }
  return first
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
