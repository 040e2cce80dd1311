import { type TSchema, Type } from 'typebox'
import { fill } from '../messages/index.js'
import type { ApiErrorBody } from './api-error.js'
import { type ErrorAnswer, PROBLEMS } from './catalogue.js'

/*
 * The error answers of each operation, for the OpenAPI document: each status lists its
 * codes, with one real example body per code (from the answer's example arguments and
 * English text). The error handler sends these bodies itself: the schemas serialize nothing.
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

/** An error answer of the document: a $ref to ApiError with its codes' examples. */
interface ErrorResponse extends TSchema {
  readonly description: string
  readonly 'x-examples': Readonly<Record<string, { summary: string; value: ApiErrorBody }>>
  readonly headers?: Readonly<Record<string, object>>
}

/** The English body of an answer, with its example arguments. */
function exampleError({ code, texts, exampleArgs }: ErrorAnswer): ApiErrorBody {
  const indexed = Object.fromEntries(exampleArgs.map((arg, index) => [index, arg]))
  return { code, message: fill(texts.en, indexed) }
}

/** One code of an answer, as the description of its status lists it. */
const described = ({ code, description }: ErrorAnswer) => `${code}: ${description}`

const headersNamed = (names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, {}]))

/** The headers an error status carries: every 503 says when to come back. */
const STATUS_HEADERS: Readonly<Record<number, readonly string[]>> = {
  401: ['WWW-Authenticate'],
  403: ['WWW-Authenticate'],
  429: ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'],
  503: ['Retry-After'],
}

function errorResponse(status: number, answers: readonly ErrorAnswer[]): ErrorResponse {
  const headers = STATUS_HEADERS[status]
  return {
    ...Type.Ref('ApiError'),
    description: answers.map(described).join(' '),
    'x-examples': Object.fromEntries(
      answers.map((answer) => [answer.code, { summary: answer.code, value: exampleError(answer) }]),
    ),
    ...(headers && { headers: headersNamed(headers) }),
  }
}

/** Each status of the answers with its answers, each code once. */
function byStatus(answers: readonly ErrorAnswer[]): Map<number, ErrorAnswer[]> {
  const grouped = new Map<number, ErrorAnswer[]>()
  for (const answer of answers) {
    const group = grouped.get(answer.status) ?? []
    if (!group.some(({ code }) => code === answer.code)) group.push(answer)
    grouped.set(answer.status, group)
  }
  return grouped
}

function responsesFor(answers: readonly ErrorAnswer[]): Record<number, ErrorResponse> {
  return Object.fromEntries(
    [...byStatus(answers)].map(([status, group]) => [status, errorResponse(status, group)]),
  )
}

/**
 * The ApiError answers of an API operation by status. What any API request can be
 * answered (400 without Host, 417, 406, 500) and a database failure are added.
 */
export function errorResponses(
  ...answers: readonly (ErrorAnswer | readonly ErrorAnswer[])[]
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
  const merged: Record<string, TSchema> = { ...responses }
  for (const [status, added] of byStatus(policyAnswers(policy))) {
    const own = merged[status] as ErrorResponse | undefined
    if (own === undefined) {
      merged[status] = errorResponse(status, added)
      continue
    }
    // A status the route answers without an ApiError (a 204) keeps its own answer.
    if (own['x-examples'] === undefined) continue
    const fresh = added.filter(({ code }) => !Object.hasOwn(own['x-examples'], code))
    merged[status] = {
      ...own,
      description: [own.description, ...fresh.map(described)].join(' '),
      'x-examples': {
        ...own['x-examples'],
        ...Object.fromEntries(
          fresh.map((answer) => [
            answer.code,
            { summary: answer.code, value: exampleError(answer) },
          ]),
        ),
      },
    }
  }
  return merged
}
