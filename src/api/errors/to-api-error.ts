import type { FastifyError } from 'fastify'
import { refusedPart } from '../connection/refused-request-line.js'
import { fill, type Locale, message } from '../messages/index.js'
import type { ApiErrorBody } from './api-error.js'
import { ApiProblem } from './api-problem.js'
import { type ErrorAnswer, PROBLEMS } from './catalogue.js'

/**
 * Fastify's refusals of a request, by their code: each names its cause. Any other error
 * (a Fastify code not listed, a library's error no stage mapped) is the service's own
 * failure: 500 e.ex.fw.9001, its cause logged. No answer is chosen by a status alone.
 */
const FASTIFY_ANSWERS: Readonly<Record<string, ErrorAnswer>> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: PROBLEMS.unsupportedMediaType,
  FST_ERR_CTP_BODY_TOO_LARGE: PROBLEMS.bodyTooLarge,
  FST_ERR_CTP_EMPTY_JSON_BODY: PROBLEMS.malformedBody,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: PROBLEMS.malformedBody,
  FST_ERR_CTP_INVALID_JSON_BODY: PROBLEMS.malformedBody,
  // A path that cannot be decoded names no resource.
  FST_ERR_BAD_URL: PROBLEMS.resourceNotFound,
}

/** Requests Node refused whole, by its error code. */
const BROKEN_REQUEST_ANSWERS: Readonly<Record<string, ErrorAnswer>> = {
  HPE_HEADER_OVERFLOW: PROBLEMS.headersTooLarge,
  ERR_HTTP_REQUEST_TIMEOUT: PROBLEMS.requestTimeout,
}

export interface Rendered {
  readonly status: number
  readonly body: ApiErrorBody
  readonly headers: Readonly<Record<string, string>>
}

const indexed = (args: readonly (string | number)[]) =>
  Object.fromEntries(args.map((arg, index) => [index, arg]))

function render(problem: ApiProblem, locale: Locale): Rendered {
  const details = problem.violations.map((violation) => ({
    code: violation.constraint,
    message: message(locale, violation.constraint, {
      ...violation.attributes,
      0: violation.target,
    }),
    target: violation.target,
  }))
  return {
    status: problem.status,
    headers: problem.headers,
    body: {
      code: problem.code,
      message: fill(problem.texts[locale], indexed(problem.args)),
      ...(problem.target !== undefined && { target: problem.target }),
      ...(details.length > 0 && { details }),
    },
  }
}

const knownBy = (table: Readonly<Record<string, ErrorAnswer>>, code: unknown) =>
  typeof code === 'string' && Object.hasOwn(table, code) ? table[code] : undefined

/**
 * Any thrown value -> status, headers and ApiError body, the only such mapping: an
 * ApiProblem as it says (a domain error has been made one by domain-errors.ts), Fastify's
 * refusals by their code, anything else 500.
 */
export function toApiError(error: unknown, locale: Locale): Rendered {
  if (error instanceof ApiProblem) return render(error, locale)
  const problem = new ApiProblem(
    knownBy(FASTIFY_ANSWERS, (error as Partial<FastifyError>).code) ?? PROBLEMS.systemError,
  )
  return render(problem, locale)
}

/**
 * The answer to bytes Node's parser refused, by the part it refused (decisions §2): a
 * request line or a header is 400 e.ex.fw.7006 naming the part, a chunked body's framing
 * 400 e.ex.fw.7003. A parser code no table knows names no part: 7006 naming `request`.
 */
export function brokenRequestProblem(error: Parameters<typeof refusedPart>[0]): ApiProblem {
  const whole = knownBy(BROKEN_REQUEST_ANSWERS, error.code)
  if (whole) return new ApiProblem(whole)
  const refused = refusedPart(error)
  if (refused?.part === 'body') return new ApiProblem(PROBLEMS.malformedBody)
  return new ApiProblem(PROBLEMS.parameterTypeMismatch, { target: refused?.target ?? 'request' })
}

/** What is sent when even rendering the error failed: fixed, so it cannot fail. */
export const LAST_RESORT: Rendered = {
  status: 500,
  headers: {},
  body: { code: PROBLEMS.systemError.code, message: message('en', PROBLEMS.systemError.code) },
}
