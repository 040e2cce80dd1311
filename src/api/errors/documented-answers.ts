import { type TSchema, Type } from 'typebox'
import { message } from '../messages/index.js'
import type { ApiErrorBody } from './api-error.js'
import {
  answer,
  describeAnswer,
  ERROR_CATALOGUE,
  type ErrorAnswer,
  type ErrorCode,
  PROBLEMS,
} from './catalogue.js'

/*
 * The error answers of each operation, for the OpenAPI document: each status lists its
 * codes, with one real example body per code (from the catalogue and the English
 * messages). The error handler sends these bodies itself: the schemas serialize nothing.
 */

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

/** A guarded write: If-Match names another version (412), or a concurrent change won (409). */
export const PRECONDITION_ERRORS: readonly ErrorAnswer[] = [
  PROBLEMS.preconditionFailed,
  PROBLEMS.changedMeanwhile,
]

/** An Idempotency-Key that is malformed, reused for another request, or still in use. */
const IDEMPOTENCY_ERRORS: readonly ErrorAnswer[] = [
  PROBLEMS.parameterTypeMismatch,
  PROBLEMS.idempotencyKeyReused,
  PROBLEMS.idempotencyKeyInFlight,
]

type AnswerOrCode = ErrorAnswer | ErrorCode

/** An error answer of the document: a $ref to ApiError with its codes' examples. */
interface ErrorResponse extends TSchema {
  readonly description: string
  readonly 'x-examples': Readonly<Record<string, { summary: string; value: ApiErrorBody }>>
  readonly headers?: Readonly<Record<string, object>>
}

/** The English body of a code, with the catalogue's example arguments. */
function exampleError(code: ErrorCode): ApiErrorBody {
  const args = (ERROR_CATALOGUE[code] as { exampleArgs?: readonly string[] }).exampleArgs ?? []
  const indexed = Object.fromEntries(args.map((arg, index) => [index, arg]))
  return { code, message: message('en', code, indexed) }
}

const headersNamed = (names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, {}]))

/** The headers an error status carries: every 503 says when to come back. */
const STATUS_HEADERS: Readonly<Record<number, readonly string[]>> = {
  401: ['WWW-Authenticate'],
  403: ['WWW-Authenticate'],
  429: ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'],
  503: ['Retry-After'],
}

function errorResponse(status: number, codes: readonly ErrorCode[]): ErrorResponse {
  const headers = STATUS_HEADERS[status]
  return {
    ...Type.Ref('ApiError'),
    description: codes.map((code) => `${code}: ${describeAnswer({ status, code })}`).join(' '),
    'x-examples': Object.fromEntries(
      codes.map((code) => [code, { summary: code, value: exampleError(code) }]),
    ),
    ...(headers && { headers: headersNamed(headers) }),
  }
}

/** Each status of the answers with its codes, each code once. */
function responsesFor(answers: readonly AnswerOrCode[]): Record<number, ErrorResponse> {
  const byStatus = new Map<number, ErrorCode[]>()
  for (const item of answers) {
    const { status, code } = typeof item === 'string' ? answer(item) : item
    const codes = byStatus.get(status) ?? []
    if (!codes.includes(code)) codes.push(code)
    byStatus.set(status, codes)
  }
  return Object.fromEntries(
    [...byStatus].map(([status, codes]) => [status, errorResponse(status, codes)]),
  )
}

/**
 * The ApiError answers of an API operation by status. What any API request can be
 * answered (400 without Host, 417, 406, 500) and a database failure are added.
 */
export function errorResponses(
  ...answers: readonly (AnswerOrCode | readonly AnswerOrCode[])[]
): Record<number, TSchema> {
  return responsesFor([...answers.flat(), ...JSON_REQUEST, PROBLEMS.dataAccessFailure])
}

/** The same for a health check, which reads no stored data. */
export function probeErrorResponses(): Record<number, TSchema> {
  return responsesFor(JSON_REQUEST)
}

/** The same outside the JSON contexts (metrics), where Accept is not negotiated. */
export function plainErrorResponses(): Record<number, TSchema> {
  return responsesFor(EVERY_REQUEST)
}

/** What a route's policy (route-policy.ts) adds to its answers. */
export interface PolicyAnswers {
  /** Authentication is on and the route needs a scope: 401, 403, 503 without the keys. */
  readonly scoped: boolean
  /** RATE_LIMIT is on for the route: 429. */
  readonly limited: boolean
  /** The route does expensive work (its policy names a cost): 503 while the instance is busy. */
  readonly costly: boolean
  /** The route honours an Idempotency-Key. */
  readonly idempotent: boolean
}

/** The answers a route's policy adds. */
export function policyAnswers({ scoped, limited, costly, idempotent }: PolicyAnswers) {
  return [
    ...(scoped
      ? [PROBLEMS.unauthenticated, PROBLEMS.insufficientScope, PROBLEMS.identityProviderUnavailable]
      : []),
    ...(limited ? [PROBLEMS.tooManyRequests] : []),
    ...(costly ? [PROBLEMS.serviceBusy] : []),
    ...(idempotent ? IDEMPOTENCY_ERRORS : []),
  ]
}

/**
 * A route's own answers with those its policy adds: where both have a status, its codes
 * (each once), examples and headers together.
 */
export function withPolicyAnswers(
  responses: Readonly<Record<string, TSchema>>,
  policy: PolicyAnswers,
): Record<string, TSchema> {
  const added = responsesFor(policyAnswers(policy))
  const merged: Record<string, TSchema> = { ...responses }
  for (const [status, response] of Object.entries(added)) {
    const own = merged[status] as Partial<ErrorResponse> | undefined
    const ownCodes = Object.keys(own?.['x-examples'] ?? {}) as ErrorCode[]
    if (own !== undefined && ownCodes.length === 0) continue
    const codes = [...ownCodes, ...Object.keys(response['x-examples'])] as ErrorCode[]
    merged[status] = errorResponse(Number(status), [...new Set(codes)])
  }
  return merged
}
