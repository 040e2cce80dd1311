import { Ajv } from 'ajv'
import type { FastifySchemaCompiler } from 'fastify'
import { ApiProblem } from '../errors/api-problem.js'
import { PROBLEMS } from '../errors/catalogue.js'
import { addContractKeywords } from './keywords.js'
import { fieldOrder, toValidationProblem, type ValidationSource } from './violations.js'

/**
 * Two Ajv instances compile every route schema. Bodies are JSON and keep their types
 * exactly (a string field accepts a string or null, nothing else); query strings and
 * path variables are text and are converted to the schema's types first.
 * Both fill absent fields with their default (null), so "absent" and "null" are
 * judged alike, as Bean Validation does.
 */
const common = {
  allErrors: true,
  useDefaults: true,
  allowUnionTypes: true,
  verbose: true,
  // TypeBox writes well-formed schemas, and strict mode still rejects unknown keywords;
  // checking each against the meta-schema costs every start time for nothing.
  validateSchema: false,
} as const

const bodyAjv = addContractKeywords(new Ajv({ ...common, coerceTypes: false }))
const parameterAjv = addContractKeywords(new Ajv({ ...common, coerceTypes: 'array' }))

/**
 * A query integer is an optional `-` and decimal digits within the safe range
 * (decisions §2). Ajv's coercion is looser (`1e3`, `5.0`, `0x10`, ` 5`, `Infinity`
 * become numbers), so integer parameters are checked as text before it runs.
 */
const INTEGER_TEXT = /^-?[0-9]+$/

function isIntegerText(value: unknown): boolean {
  return typeof value !== 'string' || (INTEGER_TEXT.test(value) && Number.isSafeInteger(+value))
}

/** The names of a parameter schema's integer properties. */
function integerProperties(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties
  return Object.entries(properties ?? {})
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => name)
}

function firstBadInteger(names: readonly string[], data: unknown): ApiProblem | undefined {
  const values = data as Record<string, unknown>
  const target = names.find((name) => !isIntegerText(values[name]))
  return target === undefined
    ? undefined
    : new ApiProblem(PROBLEMS.parameterTypeMismatch, { target })
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const source: ValidationSource = httpPart === 'body' ? 'body' : 'parameters'
  const validate = (source === 'body' ? bodyAjv : parameterAjv).compile(schema as object)
  const order = fieldOrder(schema)
  const integers = source === 'parameters' ? integerProperties(schema) : []
  return (data: unknown) => {
    const badInteger = integers.length > 0 ? firstBadInteger(integers, data) : undefined
    if (badInteger) return { error: badInteger }
    return validate(data)
      ? true
      : { error: toValidationProblem(validate.errors ?? [], source, order) }
  }
}
