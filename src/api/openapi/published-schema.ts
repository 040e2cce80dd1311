import { CODE_LISTS } from '../../domain/common/code-lists.js'
import { KEYWORD } from '../validation/keywords.js'

/**
 * A route schema as the OpenAPI document publishes it: standard JSON Schema that
 * generators, validators and the docs page understand, describing exactly the requests
 * the service accepts. The service itself validates with the contract's keywords
 * (validation/keywords.ts), which judge an absent field as null, so that `null` gets the
 * contract's NotNull detail rather than a type error; here a required value is simply
 * required and not nullable. A titled schema (Member, CredentialCreate, …) becomes a
 * reference to the component of that name.
 */

type Schema = Record<string, unknown>

/** Any text without U+0000 (a JSON Schema pattern is ECMA-262, matched anywhere: anchored). */
const NO_NUL = '^[^\\u0000]*$'

const DATA_KEYWORDS = new Set(['examples', 'x-examples', 'enum', 'const', 'default'])

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The type without `null`: `['string', 'null']` -> `'string'`. */
function nonNullType(type: unknown): unknown {
  if (!Array.isArray(type)) return type
  const types = type.filter((name) => name !== 'null')
  return types.length === 1 ? types[0] : types
}

/** NotNull or NotEmpty: the value must be there and not null. */
function isRequiredValue(schema: Schema): boolean {
  return schema[KEYWORD.notNull] === true || schema[KEYWORD.notEmpty] === true
}

function appendSentence(description: unknown, sentence: string): string {
  return typeof description === 'string' ? `${description} ${sentence}` : sentence
}

/** An e-mail address, or "" (Email passes the empty string, decisions §3). */
function emailOrEmpty(schema: Schema): Schema {
  const { format: _format, maxLength, type, ...rest } = schema
  const email = { type: 'string', format: 'email', ...(maxLength !== undefined && { maxLength }) }
  const branches: Schema[] = [email, { type: 'string', maxLength: 0 }]
  if (Array.isArray(type) && type.includes('null')) branches.push({ type: 'null' })
  return { ...rest, oneOf: branches }
}

/** One schema node's contract keywords as standard keywords; its children are done by the caller. */
function standardKeywords(schema: Schema): Schema {
  if (schema[KEYWORD.mustBeNull] === true) {
    return {
      type: 'null',
      description: appendSentence(schema.description, 'Set by the service: send null or omit it.'),
    }
  }
  const {
    [KEYWORD.notNull]: _notNull,
    [KEYWORD.notEmpty]: notEmpty,
    [KEYWORD.mustBeNull]: _mustBeNull,
    [KEYWORD.past]: past,
    [KEYWORD.codeList]: codeList,
    [KEYWORD.uniqueProperties]: _uniqueProperties,
    [KEYWORD.wellFormed]: _wellFormed,
    ...standard
  } = schema
  if (isRequiredValue(schema)) {
    standard.type = nonNullType(standard.type)
    delete standard.default
  }
  if (notEmpty === true && (typeof standard.minLength !== 'number' || standard.minLength < 1)) {
    standard.minLength = 1
  }
  if (typeof codeList === 'string') {
    standard.enum = [...(CODE_LISTS[codeList] ?? [])]
  }
  if (past === true) standard.description = appendSentence(standard.description, 'In the past.')
  // Absent and null are alike to the service; a default of null would make generators
  // (openapi-typescript's defaults) require the field of every caller.
  if (standard.default === null) delete standard.default
  // Only the contract's own text fields (not the standard schemas published here) admit "".
  const isContractText = KEYWORD.wellFormed in schema
  // Text holds any character but U+0000, which PostgreSQL cannot store (decisions §1).
  if (isContractText) standard.pattern = NO_NUL
  if (isContractText && standard.format === 'email' && notEmpty !== true) {
    return emailOrEmpty(standard)
  }
  return standard
}

/** Which properties a request must carry: the required values, and those without a default. */
function requiredProperties(schema: Schema, properties: Record<string, Schema>): string[] {
  const listed = Array.isArray(schema.required) ? (schema.required as string[]) : []
  return Object.entries(properties)
    .filter(([name, property]) =>
      KEYWORD.notNull in property || KEYWORD.notEmpty in property
        ? isRequiredValue(property)
        : listed.includes(name) && property.default === undefined,
    )
    .map(([name]) => name)
}

/**
 * Publishes a schema: contract keywords become standard ones, and every titled schema
 * below the root becomes a `$ref` to the component of its title (the root too, unless
 * `keepRoot`: a component's own definition). `found` collects the titled schemas met.
 */
export function publishSchema(
  schema: unknown,
  options: { keepRoot?: boolean; found?: Map<string, Schema> } = {},
): unknown {
  const visit = (node: unknown, isRoot: boolean): unknown => {
    if (Array.isArray(node)) return node.map((item) => visit(item, false))
    if (!isObject(node)) return node
    if (typeof node.title === 'string' && !(isRoot && options.keepRoot)) {
      if (!options.found?.has(node.title)) options.found?.set(node.title, node)
      return { $ref: node.title }
    }
    const published = standardKeywords(node)
    const properties = isObject(published.properties)
      ? (published.properties as Record<string, Schema>)
      : undefined
    const result: Schema = {}
    for (const [key, value] of Object.entries(published)) {
      // Examples and values are data, not schemas; `properties` is a map of schemas.
      if (DATA_KEYWORDS.has(key)) result[key] = value
      else if (key === 'properties' && properties) {
        result.properties = Object.fromEntries(
          Object.entries(properties).map(([name, child]) => [name, visit(child, false)]),
        )
      } else result[key] = visit(value, false)
    }
    if (properties) {
      const required = requiredProperties(node, properties)
      if (required.length > 0) result.required = required
      else delete result.required
    }
    return result
  }
  return visit(schema, true)
}

/**
 * Every titled schema reachable from the roots, each published as a component
 * definition (its own titled children as references).
 */
export function publishComponents(roots: readonly unknown[]): Map<string, unknown> {
  const pending = new Map<string, Schema>()
  for (const root of roots) publishSchema(root, { found: pending })
  const components = new Map<string, unknown>()
  for (const [name, schema] of pending) {
    pending.delete(name)
    if (components.has(name)) continue
    const found = new Map<string, Schema>()
    components.set(name, publishSchema(schema, { keepRoot: true, found }))
    for (const [childName, child] of found) {
      if (!components.has(childName)) pending.set(childName, child)
    }
  }
  return components
}
