import { Ajv2020 } from 'ajv/dist/2020.js'
import ajvFormats from 'ajv-formats'

/** The parts of the OpenAPI document the suites read. */
export interface Schema {
  readonly type?: unknown
  readonly $ref?: string
  readonly title?: string
  readonly properties?: Record<string, Schema>
  readonly required?: string[]
  readonly items?: Schema
  readonly anyOf?: Schema[]
  readonly oneOf?: Schema[]
  readonly enum?: unknown[]
  readonly minLength?: number
  readonly examples?: unknown[]
}

export interface MediaType {
  readonly schema?: Schema
  readonly example?: unknown
  readonly examples?: Record<string, { readonly value?: unknown }>
}

export interface Parameter {
  readonly in: string
  readonly name: string
  readonly required?: boolean
  readonly schema?: Schema
}

export interface Header {
  readonly required?: boolean
  readonly schema?: Schema
}

export interface Response {
  readonly description?: string
  readonly headers?: Record<string, Header>
  readonly content?: Record<string, MediaType>
}

export interface Operation {
  readonly operationId?: string
  readonly summary?: string
  readonly description?: string
  readonly tags?: string[]
  readonly parameters?: Parameter[]
  readonly requestBody?: {
    readonly required?: boolean
    readonly content: Record<string, MediaType>
  }
  readonly responses: Record<string, Response>
}

export interface OpenApiDocument {
  readonly openapi: string
  readonly servers?: { readonly url: string }[]
  readonly security?: unknown[]
  readonly tags?: { readonly name: string }[]
  readonly paths: Record<string, Record<string, Operation>>
  readonly components: { readonly schemas: Record<string, Schema> }
}

export interface DocumentedOperation {
  readonly method: string
  readonly path: string
  readonly operation: Operation
}

export const OPENAPI_PATH = '/api/v1/openapi.json'
export const COMPONENT_REF = '#/components/schemas/'
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/** The document of an app (@fastify/swagger's), as a client reads it: its JSON. */
export function documentOf(app: { swagger(): unknown }): OpenApiDocument {
  return JSON.parse(JSON.stringify(app.swagger()))
}

export function operationsOf(document: OpenApiDocument): DocumentedOperation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([key]) => HTTP_METHODS.includes(key))
      .map(([method, operation]) => ({ method, path, operation })),
  )
}

export const operationKey = ({ method, path }: { method: string; path: string }) =>
  `${method.toUpperCase()} ${path}`

export function operation(document: OpenApiDocument, method: string, path: string): Operation {
  const found = document.paths[path]?.[method]
  if (!found) throw new Error(`${method.toUpperCase()} ${path} is not documented`)
  return found
}

/** The schema, or the component its `$ref` names. */
export function resolved(document: OpenApiDocument, schema: Schema | undefined): Schema {
  const name = schema?.$ref?.replace(COMPONENT_REF, '')
  return (name === undefined ? schema : document.components.schemas[name]) ?? {}
}

/** A JSON Schema 2020-12 validator (OpenAPI 3.1's dialect) that resolves the document's $refs. */
export function schemaValidator(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  ajvFormats.default(ajv)
  return (schema: Schema) => ajv.compile({ ...schema, components: document.components })
}
