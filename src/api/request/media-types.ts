import Negotiator from 'negotiator'

/** The contract's Content-Type, byte for byte. */
export const JSON_CONTENT_TYPE = 'application/json;charset=UTF-8'

const WEIGHT = /^\s*q\s*=/i

/**
 * The Accept header with each media range's parameters dropped and its weight kept:
 * `application/json;charset=UTF-8` (many Java and .NET clients) asks for JSON as
 * much as `application/json` does, but Negotiator matches a range's parameters
 * against the offered type's, and the service offers one JSON representation only.
 */
function rangesWithoutParameters(accept: string): string {
  return accept
    .split(',')
    .map((range) => {
      const [type = '', ...parameters] = range.split(';')
      const weight = parameters.find((parameter) => WEIGHT.test(parameter))
      return weight === undefined ? type : `${type};${weight.trim()}`
    })
    .join(',')
}

/** Does this Accept header admit application/json? Absent means anything goes. */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept === '' || accept === '*/*' || accept === 'application/json') {
    return true
  }
  const ranges = rangesWithoutParameters(accept)
  return (
    new Negotiator({ headers: { accept: ranges } }).mediaType(['application/json']) !== undefined
  )
}
