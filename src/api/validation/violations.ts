import type { ErrorObject } from 'ajv'
import { ApiProblem } from '../errors/api-problem.js'
import { PROBLEMS } from '../errors/catalogue.js'
import { CONSTRAINT_ORDER, type ConstraintName, type Violation } from '../errors/constraints.js'
import type { MessageArgs } from '../messages/index.js'
import { KEYWORD } from './keywords.js'

/** Where the validated data came from: the JSON body, or the query string and path. */
export type ValidationSource = 'body' | 'parameters'

/** The schema keyword behind each contract constraint, and the constraint's message attributes. */
const CONSTRAINTS: Readonly<
  Record<string, (error: ErrorObject) => { constraint: ConstraintName; attributes?: MessageArgs }>
> = {
  [KEYWORD.notNull]: () => ({ constraint: 'NotNull' }),
  [KEYWORD.notEmpty]: () => ({ constraint: 'NotEmpty' }),
  [KEYWORD.mustBeNull]: () => ({ constraint: 'Null' }),
  [KEYWORD.past]: () => ({ constraint: 'Past' }),
  [KEYWORD.uniqueProperties]: () => ({ constraint: 'UniqueElements' }),
  [KEYWORD.codeList]: (error) => ({
    constraint: 'ExistInCodeList',
    attributes: { codeListId: String(error.schema) },
  }),
  minLength: sizeOf,
  maxLength: sizeOf,
  minimum: (error) => ({ constraint: 'Min', attributes: { value: Number(error.params.limit) } }),
  maximum: (error) => ({ constraint: 'Max', attributes: { value: Number(error.params.limit) } }),
  pattern: (error) => ({
    constraint: 'Pattern',
    attributes: { regexp: String(error.params.pattern) },
  }),
}

/** Formats that are constraints; every other format is part of the field's type (date, date-time). */
const CONSTRAINT_FORMATS: Readonly<Record<string, ConstraintName>> = { email: 'Email' }

function sizeOf(error: ErrorObject) {
  const schema = error.parentSchema as { minLength?: number; maxLength?: number }
  return {
    constraint: 'Size' as const,
    attributes: { min: schema.minLength ?? 0, max: schema.maxLength ?? 2147483647 },
  }
}

/** `/credential/password` -> `credential.password`; `/sort/1` -> `sort[1]`. */
function fieldPath(instancePath: string, child?: string): string {
  const segments = instancePath.split('/').slice(1)
  if (child !== undefined) segments.push(child)
  return segments
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, segment) => {
      if (/^\d+$/.test(segment)) return `${path}[${segment}]`
      return path === '' ? segment : `${path}.${segment}`
    }, '')
}

/** Field paths in schema order, parents before their children (the order of details). */
export function fieldOrder(schema: unknown): ReadonlyMap<string, number> {
  const order = new Map<string, number>()
  const walk = (node: unknown, prefix: string) => {
    const properties = (node as { properties?: Record<string, unknown> } | undefined)?.properties
    if (!properties) return
    for (const [name, child] of Object.entries(properties)) {
      const path = prefix === '' ? name : `${prefix}.${name}`
      order.set(path, order.size)
      walk(child, path)
    }
  }
  walk(schema, '')
  return order
}

function byFieldThenConstraint(order: ReadonlyMap<string, number>) {
  const rank = (target: string) => order.get(target.replace(/\[\d+\]/g, '')) ?? order.size
  return (a: Violation, b: Violation) =>
    rank(a.target) - rank(b.target) ||
    CONSTRAINT_ORDER.indexOf(a.constraint) - CONSTRAINT_ORDER.indexOf(b.constraint)
}

/** Orders violations by the schema's field order, then by the contract's constraint order. */
export function sortViolations(
  violations: readonly Violation[],
  order: ReadonlyMap<string, number>,
): Violation[] {
  return [...violations].sort(byFieldThenConstraint(order))
}

/**
 * Turns Ajv's errors into the contract's answer, in its precedence: an unknown field
 * (7004), else a value of the wrong type or format (7005 / 7006), else every
 * violated constraint as an ordered detail (7001 / 7002).
 */
export function toValidationProblem(
  errors: readonly ErrorObject[],
  source: ValidationSource,
  order: ReadonlyMap<string, number>,
): ApiProblem {
  const unknown = errors.find((error) => error.keyword === 'additionalProperties')
  if (unknown) {
    const target = fieldPath(unknown.instancePath, String(unknown.params.additionalProperty))
    return new ApiProblem(PROBLEMS.unknownField, { target })
  }

  const violations: Violation[] = []
  for (const error of errors) {
    const format =
      error.keyword === 'format' ? CONSTRAINT_FORMATS[String(error.params.format)] : undefined
    const constraint = format ? { constraint: format } : CONSTRAINTS[error.keyword]?.(error)
    if (!constraint) {
      // type, format of a typed value (date, date-time), well-formedness: a binding failure.
      const mismatch =
        source === 'body' ? PROBLEMS.bodyTypeMismatch : PROBLEMS.parameterTypeMismatch
      return new ApiProblem(mismatch, { target: fieldPath(error.instancePath) })
    }
    violations.push({ ...constraint, target: fieldPath(error.instancePath) })
  }
  const problem = source === 'body' ? PROBLEMS.bodyValidation : PROBLEMS.parameterValidation
  return new ApiProblem(problem, { violations: sortViolations(violations, order) })
}

/**
 * Adds violations found outside the schema (a body field checked against the path)
 * to the outcome of schema validation, with the same precedence: a binding failure
 * (7004/7005) answers alone; otherwise every violation is one ordered 7001 detail.
 */
export function withBodyViolations(
  schemaFailure: Error | undefined,
  extra: readonly Violation[],
  order: ReadonlyMap<string, number>,
): Error | undefined {
  if (schemaFailure && !(schemaFailure instanceof ApiProblem)) return schemaFailure
  if (schemaFailure && schemaFailure.code !== PROBLEMS.bodyValidation.code) return schemaFailure
  const violations = [...(schemaFailure?.violations ?? []), ...extra]
  if (violations.length === 0) return undefined
  return new ApiProblem(PROBLEMS.bodyValidation, { violations: sortViolations(violations, order) })
}
