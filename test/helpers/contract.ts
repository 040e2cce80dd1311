import type { IncomingHttpHeaders } from 'node:http'
import type { Options as AjvOptions, AnySchema, ErrorObject, ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import ajvFormats from 'ajv-formats'
import { OpenAPIBackend, type Operation, SetMatchType } from 'openapi-backend'

/**
 * Contract testing: every response an API test receives is held to the server's own
 * OpenAPI document (status listed for the operation, Content-Type, body schema,
 * declared response headers), so that a drift fails the very test that caused it.
 *
 * openapi-backend matches the operation and validates bodies and header values (Ajv).
 * What it cannot do on its own, and how this file works around it:
 * - Its document check knows OpenAPI 2.0/3.0 only: a 3.1 document fails it, and then it
 *   never dereferences the document (nothing matches). `quick: true` skips that check
 *   (and compiles validators lazily, once per operation).
 * - quick mode dereferences with a plain JSON-pointer walk: `$ref` siblings are dropped
 *   and `~0`/`~1`/percent escapes are not decoded. Siblings are wrapped in `allOf` here;
 *   any `$ref` the walk could not resolve fails the build instead of validating nothing.
 * - Its Ajv is draft-07 (no prefixItems, $defs, unevaluated*, dependentRequired...):
 *   `customizeAjv` swaps in Ajv 2020 with ajv-formats and the OAS number formats.
 * - Speed: its router flattens the whole document at every match (0.5-1.5 ms a
 *   request), and it compiles per operation a body validator per status and four
 *   header validators per status, each in a new Ajv (0.5 s an operation). The flat
 *   operation list is computed once here, and one Ajv memoizes compiles by schema text.
 * - It validates bodies under the media type `application/json` only: any other JSON
 *   media type key (e.g. `application/json;charset=UTF-8`) is aliased to it.
 * - It needs operationIds: every operation gets `METHOD /path` as its id here (the
 *   document's own id is kept for messages).
 * - It reports no unlisted status and no body on a response without content, treats
 *   every declared header as required in its `superset` mode (ignoring `required`),
 *   and never flags an undeclared header: those checks are done here.
 */

/** The only Content-Type of a documented JSON response. */
export const JSON_CONTENT_TYPE = 'application/json;charset=UTF-8'

/** Headers the service itself sets: when sent, they must be declared for that response. */
const SERVICE_HEADERS = ['etag', 'location', 'allow', 'idempotent-replayed', 'cache-control']
/**
 * On every response. Held to the same rule as SERVICE_HEADERS once the document declares
 * them on any response (then every response must declare them).
 */
const EVERY_RESPONSE_HEADERS = ['x-track', 'x-content-type-options']

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

export interface CheckedResponse {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly text: string
  /** The body parsed as JSON (undefined when empty or not JSON). */
  readonly body: unknown
}

export interface ContractChecker {
  /**
   * The ways one response breaks the document: none when it keeps it, or when no
   * documented operation serves (method, path): an unknown path, an unserved method, a
   * hidden route. `path` is the request path, without query.
   */
  check(method: string, path: string, response: CheckedResponse): string[]
}

interface HeaderObject {
  readonly required?: boolean
  readonly schema?: unknown
}

interface ResponseObject {
  readonly content?: Record<string, unknown>
  readonly headers?: Record<string, HeaderObject>
}

type JsonObject = Record<string, unknown>

const checkers = new Map<string, Promise<ContractChecker>>()

/** The checker of one document, compiled once per distinct document (per test worker). */
export function contractCheckerFor(document: unknown): Promise<ContractChecker> {
  const key = JSON.stringify(document)
  let checker = checkers.get(key)
  if (checker === undefined) {
    checker = buildChecker(JSON.parse(key) as JsonObject)
    checkers.set(key, checker)
  }
  return checker
}

/** The error a request rejects with when its response breaks the contract. */
export function contractError(
  method: string,
  path: string,
  response: CheckedResponse,
  violations: readonly string[],
): Error {
  const body = response.text.length > 300 ? `${response.text.slice(0, 300)}…` : response.text
  return new Error(
    `OpenAPI contract violated by ${method.toUpperCase()} ${path} -> ${response.status}:\n` +
      violations.map((violation) => `  - ${violation}`).join('\n') +
      `\n  body: ${body === '' ? '(empty)' : body}`,
  )
}

async function buildChecker(document: JsonObject): Promise<ContractChecker> {
  const documentedIds = new Map<string, string | undefined>()
  const unresolved = prepare(document, documentedIds)
  if (unresolved.length > 0) {
    throw new Error(`contract check: $ref the checker cannot resolve: ${unresolved.join(', ')}`)
  }
  const api = new OpenAPIBackend({
    definition: document as never,
    quick: true,
    validate: true,
    ignoreTrailingSlashes: false,
    ajvOpts: { strict: false, allErrors: true },
    customizeAjv: (_draft07, options) => sharedAjv(options),
  })
  await api.init()
  // The router flattens the document (lodash) at every match: 0.5 ms a request. Once.
  const operations = api.router.getOperations()
  api.router.getOperations = () => operations
  if (operations.length === 0) {
    throw new Error('contract check: openapi-backend found no operation in the document')
  }
  const responses = allResponses(operations)
  const strictHeaders = [
    ...SERVICE_HEADERS,
    ...EVERY_RESPONSE_HEADERS.filter((name) =>
      responses.some((response) => declaredHeaders(response).has(name)),
    ),
  ]

  return {
    check(method, path, response) {
      const operation = api.router.matchOperation({ method, path, headers: {} })
      if (operation === undefined) return []
      const status = response.status
      const documented = responseFor(operation, status)
      if (documented === undefined) {
        const listed = Object.keys(responsesOf(operation)).join(', ')
        return [
          `status ${status} is not documented for ${describe(operation, documentedIds)} (${listed})`,
        ]
      }
      const violations: string[] = []
      const hasContent = Object.keys(documented.content ?? {}).length > 0
      const contentType = headerValue(response.headers['content-type'])
      const bodiless =
        method.toUpperCase() === 'HEAD' || status < 200 || [204, 304].includes(status)
      if (bodiless) {
        if (hasContent) {
          violations.push(`the ${status} response documents content, but it never has a body`)
        }
        if (response.text !== '') violations.push(`a body on a response that has none`)
      } else if (!hasContent) {
        if (response.text !== '') {
          violations.push(
            `a body (Content-Type ${contentType ?? 'none'}) but the ${status} response documents no content`,
          )
        }
      } else {
        const mediaTypes = Object.keys(documented.content ?? {})
        if (mediaTypes.some(isJsonMediaType)) {
          if (contentType !== JSON_CONTENT_TYPE) {
            violations.push(`Content-Type ${contentType ?? '(none)'}, not ${JSON_CONTENT_TYPE}`)
          }
          if (response.text === '') {
            violations.push('no body, but the response documents content')
          } else if (response.body === undefined) {
            violations.push('the body is not JSON')
          } else {
            const result = api.validator.validateResponse(response.body, operation, status)
            for (const error of result.errors ?? []) violations.push(`body ${ajvMessage(error)}`)
          }
        } else if (!mediaTypes.map(essence).includes(essence(contentType ?? ''))) {
          violations.push(`Content-Type ${contentType ?? '(none)'}, not ${mediaTypes.join(' or ')}`)
        }
      }

      const declared = declaredHeaders(documented)
      for (const [name, header] of declared) {
        if (header.required === true && response.headers[name] === undefined) {
          violations.push(`the required header ${name} is missing`)
        }
      }
      const headerResult = api.validator.validateResponseHeaders(
        { ...response.headers },
        operation,
        {
          statusCode: status,
          setMatchType: SetMatchType.Any,
        },
      )
      for (const error of headerResult.errors ?? []) {
        violations.push(`header ${ajvMessage(error).replace(/^\/headers\//, '')}`)
      }
      for (const name of strictHeaders) {
        if (response.headers[name] !== undefined && !declared.has(name)) {
          violations.push(`the header ${name} is sent but not declared for ${status}`)
        }
      }
      return violations
    },
  }
}

/**
 * Readies a copy of the document for openapi-backend (see the notes at the top) and
 * returns the `$ref`s its dereferencing would get wrong.
 */
function prepare(document: JsonObject, documentedIds: Map<string, string | undefined>): string[] {
  const paths = (document.paths ?? {}) as Record<string, JsonObject>
  for (const [path, item] of Object.entries(paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method] as JsonObject | undefined
      if (operation === undefined) continue
      const id = `${method.toUpperCase()} ${path}`
      documentedIds.set(id, operation.operationId as string | undefined)
      operation.operationId = id
    }
  }
  const unresolved: string[] = []
  const seen = new Set<unknown>()
  const walk = (node: unknown): void => {
    if (typeof node !== 'object' || node === null || seen.has(node)) return
    seen.add(node)
    if (Array.isArray(node)) {
      for (const item of node) walk(item)
      return
    }
    const record = node as JsonObject
    // Every $ref is resolved by pointer; an $id would move the base of those pointers.
    if (typeof record.$id === 'string') delete record.$id
    if (typeof record.$schema === 'string') delete record.$schema
    const ref = record.$ref
    if (typeof ref === 'string') {
      if (!resolvable(document, ref)) unresolved.push(ref)
      const siblings = Object.keys(record).filter((key) => !ANNOTATIONS.has(key))
      if (siblings.length > 0) {
        // quick mode replaces the whole object with the target: keep the siblings.
        delete record.$ref
        record.allOf = [...((record.allOf as unknown[]) ?? []), { $ref: ref }]
      }
    }
    const content = record.content as Record<string, unknown> | undefined
    if (content && typeof content === 'object' && !('application/json' in content)) {
      const json = Object.keys(content).find(isJsonMediaType)
      if (json !== undefined) content['application/json'] = content[json]
    }
    for (const value of Object.values(record)) walk(value)
  }
  walk(document)
  return unresolved
}

/** Keywords beside a `$ref` that change nothing it validates. */
const ANNOTATIONS = new Set(['$ref', 'description', 'summary', 'title', 'examples', 'example'])

/** Whether openapi-backend's quick dereferencing (a plain split on '/') finds the target. */
function resolvable(document: JsonObject, ref: string): boolean {
  if (!ref.startsWith('#/') || /[~%]/.test(ref)) return false
  let current: unknown = document
  for (const segment of ref.slice(2).split('/')) {
    if (typeof current !== 'object' || current === null) return false
    current = (current as JsonObject)[segment]
  }
  return current !== undefined && current !== null
}

/**
 * One Ajv 2020 per option set (openapi-backend asks for a new one per operation and
 * context) whose compile is memoized by schema text: openapi-backend compiles, per
 * operation, a body validator per status and four header validators per status, mostly
 * the same few schemas (ApiError, X-Track...). Shared by every document of a worker.
 */
const ajvs = new Map<string, Ajv2020>()

function sharedAjv(options: AjvOptions): Ajv2020 {
  const key = JSON.stringify(options)
  let ajv = ajvs.get(key)
  if (ajv === undefined) {
    ajv = new Ajv2020(options)
    // ajv-formats is CommonJS: its plugin function is the module's default export.
    ajvFormats.default(ajv)
    const int32 = (value: number) =>
      Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31
    ajv.addFormat('int32', { type: 'number', validate: int32 })
    for (const name of ['int64', 'float', 'double']) {
      ajv.addFormat(name, { type: 'number', validate: () => true })
    }
    for (const name of ['byte', 'binary', 'password']) ajv.addFormat(name, true)
    const compiled = new Map<string, ValidateFunction>()
    const compile = ajv.compile.bind(ajv) as (schema: AnySchema) => ValidateFunction
    ajv.compile = ((schema: AnySchema) => {
      const text = JSON.stringify(schema)
      let validate = compiled.get(text)
      if (validate === undefined) {
        validate = compile(schema)
        compiled.set(text, validate)
      }
      return validate
    }) as Ajv2020['compile']
    ajvs.set(key, ajv)
  }
  return ajv
}

/** What this file reads of an operation (openapi-backend's type is a version union). */
function responsesOf(operation: Operation): Record<string, ResponseObject> {
  // The document declares its responses in place (no $ref), so each is a ResponseObject.
  return (operation.responses ?? {}) as Record<string, ResponseObject>
}

/** The documented response for a status: the code itself, its NXX range, or default. */
function responseFor(operation: Operation, status: number): ResponseObject | undefined {
  const responses = responsesOf(operation)
  return (
    responses[String(status)] ?? responses[`${Math.floor(status / 100)}XX`] ?? responses.default
  )
}

function allResponses(operations: Operation[]): ResponseObject[] {
  return operations.flatMap((operation) => Object.values(responsesOf(operation)))
}

function declaredHeaders(response: ResponseObject): Map<string, HeaderObject> {
  return new Map(
    Object.entries(response.headers ?? {}).map(([name, header]) => [name.toLowerCase(), header]),
  )
}

/** `GET /api/v1/todos/{todoId}`, with the document's operationId if it has one. */
function describe(operation: Operation, documentedIds: Map<string, string | undefined>): string {
  const name = `${operation.method.toUpperCase()} ${operation.path}`
  const documentedId = documentedIds.get(operation.operationId ?? '')
  return documentedId === undefined ? name : `${name} (${documentedId})`
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value
}

function essence(mediaType: string): string {
  return (mediaType.split(';', 1)[0] ?? '').trim().toLowerCase()
}

function isJsonMediaType(mediaType: string): boolean {
  const type = essence(mediaType)
  return type === 'application/json' || type.endsWith('+json')
}

function ajvMessage(error: ErrorObject): string {
  const where = error.instancePath === '' ? '' : `${error.instancePath} `
  const params = error.params as Record<string, unknown>
  const detail =
    params.additionalProperty !== undefined
      ? ` (${String(params.additionalProperty)})`
      : params.allowedValues !== undefined
        ? ` (${JSON.stringify(params.allowedValues)})`
        : ''
  return `${where}${error.message ?? error.keyword}${detail}`
}
