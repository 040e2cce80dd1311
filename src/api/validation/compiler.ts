import { Ajv } from 'ajv'
import type { FastifySchemaCompiler } from 'fastify'
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
  // checking each against the meta-schema cost 15 ms of every start.
  validateSchema: false,
} as const

const bodyAjv = addContractKeywords(new Ajv({ ...common, coerceTypes: false }))
const parameterAjv = addContractKeywords(new Ajv({ ...common, coerceTypes: 'array' }))

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const source: ValidationSource = httpPart === 'body' ? 'body' : 'parameters'
  const validate = (source === 'body' ? bodyAjv : parameterAjv).compile(schema as object)
  const order = fieldOrder(schema)
  return (data: unknown) =>
    validate(data) ? true : { error: toValidationProblem(validate.errors ?? [], source, order) }
}
