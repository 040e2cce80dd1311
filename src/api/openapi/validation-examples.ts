import type { ApiErrorBody } from '../errors/api-error.js'
import { PROBLEMS } from '../errors/catalogue.js'
import { toApiError } from '../errors/to-api-error.js'
import { validatorCompiler } from '../validation/compiler.js'

type Examples = Record<string, { summary: string; value: unknown }>

interface RouteParts {
  readonly body?: unknown
  readonly querystring?: unknown
}

/**
 * The service's real answer to an empty request of the route: its own validator judges
 * `{}` as body (or as query string) and the error handler renders the outcome in English.
 * So the 7001/7002 examples name this route's fields and cannot drift from what it says.
 */
function answerToNothing(schema: unknown, httpPart: 'body' | 'querystring'): ApiErrorBody | null {
  const validate = validatorCompiler({ schema: schema as object, httpPart, method: '', url: '' })
  const outcome = validate({}) as true | { error?: Error }
  if (outcome === true || outcome.error === undefined) return null
  return toApiError(outcome.error, 'en').body
}

/** The route's 400 examples with the 7001 or 7002 example replaced by its real answer to `{}`. */
export function withValidationExamples(examples: Examples, route: RouteParts): Examples {
  const cases = [
    { code: PROBLEMS.bodyValidation.code, schema: route.body, part: 'body' as const },
    {
      code: PROBLEMS.parameterValidation.code,
      schema: route.querystring,
      part: 'querystring' as const,
    },
  ]
  const result = { ...examples }
  for (const { code, schema, part } of cases) {
    if (!(code in result) || schema === undefined) continue
    const value = answerToNothing(schema, part)
    if (value?.code !== code) continue
    const what = part === 'body' ? 'a body of {}' : 'no query parameters'
    result[code] = { summary: `${code}, the answer to ${what}`, value }
  }
  return result
}
