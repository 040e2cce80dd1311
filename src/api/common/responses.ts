import { type TSchema, Type } from 'typebox'
import type { ApiErrorBody } from '../errors/api-error.js'
import {
  answer,
  describeAnswer,
  ERROR_CATALOGUE,
  type ErrorAnswer,
  type ErrorCode,
} from '../errors/catalogue.js'
import { PROBLEMS } from '../errors/problems.js'
import { message } from '../messages/index.js'
import type { ResponseHeaderName } from '../openapi/headers.js'

/** The error body of every failure (spec: ApiError); `target` and `details` are omitted when empty. */
export const ApiErrorSchema = Type.Object(
  {
    code: Type.String({
      description: 'Error code, or inside details the violated constraint (NotNull, Size, …).',
    }),
    message: Type.String({ description: 'Message for the code, in the Accept-Language locale.' }),
    target: Type.Optional(
      Type.String({ description: 'Path of the offending field, e.g. credential.password.' }),
    ),
    details: Type.Optional(Type.Array(Type.Ref('ApiError'))),
  },
  { $id: 'ApiError', additionalProperties: false },
)

/**
 * What any request can be answered: no Host, an Expect not met, headers too large, a
 * request not received in time, a failure on our side.
 */
const EVERY_REQUEST: readonly ErrorAnswer[] = [
  PROBLEMS.parameterTypeMismatch,
  PROBLEMS.requestTimeout,
  PROBLEMS.expectationFailed,
  PROBLEMS.headersTooLarge,
  PROBLEMS.systemError,
]

/** What a request in a JSON context (the API, the health checks) can also be answered. */
const JSON_REQUEST: readonly ErrorAnswer[] = [...EVERY_REQUEST, PROBLEMS.notAcceptable]

/** A body the route reads but does not bind: not JSON, too large, another media type. */
export const BODY_FORMAT_ERRORS: readonly ErrorAnswer[] = [
  PROBLEMS.malformedBody,
  PROBLEMS.bodyTooLarge,
  PROBLEMS.unsupportedMediaType,
]

/** A body bound to the route's schema: the format errors, then binding and validation. */
export const BODY_ERRORS: readonly ErrorAnswer[] = [
  PROBLEMS.bodyValidation,
  PROBLEMS.unknownField,
  PROBLEMS.bodyTypeMismatch,
  ...BODY_FORMAT_ERRORS,
]

/** Query parameters: a value that cannot be converted, or one that breaks a rule. */
export const QUERY_ERRORS: readonly ErrorAnswer[] = [
  PROBLEMS.parameterValidation,
  PROBLEMS.parameterTypeMismatch,
]

/** An Idempotency-Key that is malformed, reused for another request, or still in use. */
export const IDEMPOTENCY_ERRORS: readonly ErrorAnswer[] = [
  PROBLEMS.parameterTypeMismatch,
  answer('e.ex.fw.7008'),
  answer('e.ex.fw.8003'),
]

/** Expensive work (decisions §9) refused while the instance is busy: 503 with Retry-After. */
export const BUSY_ERRORS: readonly ErrorAnswer[] = [PROBLEMS.serviceBusy]

/** A guarded write: If-Match names another version (412), or a concurrent change won (409). */
export const PRECONDITION_ERRORS: readonly ErrorAnswer[] = [
  PROBLEMS.preconditionFailed,
  answer('e.ex.fw.8002'),
]

type AnswerOrCode = ErrorAnswer | ErrorCode

/** The English body of a code, with the catalogue's example arguments. */
function exampleError(code: ErrorCode): ApiErrorBody {
  const args = (ERROR_CATALOGUE[code] as { exampleArgs?: readonly string[] }).exampleArgs ?? []
  const indexed = Object.fromEntries(args.map((arg, index) => [index, arg]))
  return { code, message: message('en', code, indexed) }
}

/** A status's description: each code it answers with, and when. */
function describeCodes(status: number, codes: readonly ErrorCode[]): string {
  return codes.map((code) => `${code}: ${describeAnswer({ status, code })}`).join(' ')
}

/** Each status of the answers with its codes, one real example body per code. */
function responsesFor(answers: readonly AnswerOrCode[]): Record<number, TSchema> {
  const byStatus = new Map<number, ErrorCode[]>()
  for (const item of answers) {
    const { status, code } = typeof item === 'string' ? answer(item) : item
    const codes = byStatus.get(status) ?? []
    if (!codes.includes(code)) codes.push(code)
    byStatus.set(status, codes)
  }
  return Object.fromEntries(
    [...byStatus].map(([status, codes]) => [
      status,
      Type.Ref('ApiError', {
        description: describeCodes(status, codes),
        'x-examples': Object.fromEntries(
          codes.map((code) => [code, { summary: code, value: exampleError(code) }]),
        ),
        // Every 503 says when to come back.
        ...(status === 503 && declaredHeaders(['Retry-After'])),
      }),
    ]),
  )
}

/**
 * Two sets of answers as one: where both have a status, its codes, examples and headers
 * together (a route's own 503 and authentication's, say).
 */
export function mergedResponses(
  ...sets: readonly Record<number, TSchema>[]
): Record<number, TSchema> {
  const merged: Record<number, TSchema> = {}
  for (const set of sets) {
    for (const [status, response] of Object.entries(set)) {
      const earlier = merged[Number(status)]
      merged[Number(status)] = earlier ? joined(earlier, response) : response
    }
  }
  return merged
}

/** An error answer as responsesFor makes it. */
interface ErrorResponse {
  readonly description: string
  readonly 'x-examples': Record<string, unknown>
  readonly headers?: Record<string, unknown>
}

function joined(first: TSchema, second: TSchema): TSchema {
  const [a, b] = [first, second] as unknown as Partial<ErrorResponse>[]
  if (a?.['x-examples'] === undefined || b?.['x-examples'] === undefined) return second
  return {
    ...first,
    description: `${a.description} ${b.description}`,
    'x-examples': { ...a['x-examples'], ...b['x-examples'] },
    headers: { ...a.headers, ...b.headers },
  } as TSchema
}

/**
 * The ApiError answers of an API operation by status, for the OpenAPI document: each
 * status lists its codes, with one real example body per code (from the error catalogue
 * and the English messages). What any API request can be answered (400 without Host,
 * 417, 406, 500) is added. The error handler sends these bodies itself, so the schemas
 * here serialize nothing.
 */
export function errorResponses(
  ...answers: readonly (AnswerOrCode | readonly AnswerOrCode[])[]
): Record<number, TSchema> {
  return responsesFor([...answers.flat(), ...JSON_REQUEST, PROBLEMS.dataAccessFailure])
}

/**
 * With authentication on: no valid token (401), not the operation's scope (403), the
 * provider's keys unobtainable (503); 401 and 403 carry the bearer challenge.
 */
export function authenticationErrorResponses(): Record<number, TSchema> {
  const responses = responsesFor([
    PROBLEMS.unauthenticated,
    PROBLEMS.insufficientScope,
    PROBLEMS.identityProviderUnavailable,
  ])
  for (const status of [401, 403]) {
    const response = responses[status] as TSchema
    responses[status] = { ...response, ...declaredHeaders(['WWW-Authenticate']) }
  }
  return responses
}

/** With RATE_LIMIT: over the limit (429), with when to retry and the limit's state. */
export function rateLimitErrorResponses(): Record<number, TSchema> {
  const responses = responsesFor([PROBLEMS.tooManyRequests])
  responses[429] = {
    ...(responses[429] as TSchema),
    ...declaredHeaders([
      'Retry-After',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
    ]),
  }
  return responses
}

/** The same for a health check, which reads no stored data. */
export function probeErrorResponses(): Record<number, TSchema> {
  return responsesFor(JSON_REQUEST)
}

/** The same outside the JSON contexts (metrics), where Accept is not negotiated. */
export function plainErrorResponses(): Record<number, TSchema> {
  return responsesFor(EVERY_REQUEST)
}

/**
 * The headers a route itself sets on an answer (ETag, Location), for the document;
 * operation.ts adds those every answer of a kind carries.
 */
function declaredHeaders(names: readonly ResponseHeaderName[]) {
  return names.length === 0 ? {} : { headers: Object.fromEntries(names.map((name) => [name, {}])) }
}

/** A response without a body (204, 304, OPTIONS' 200). */
export function noBody(description: string, headers: readonly ResponseHeaderName[] = []): TSchema {
  return Type.Null({ description, ...declaredHeaders(headers) })
}

/** A response body with the description of that answer and the headers the route sets on it. */
export function described<T extends TSchema>(
  schema: T,
  description: string,
  headers: readonly ResponseHeaderName[] = [],
): T {
  return { ...schema, description, ...declaredHeaders(headers) }
}
