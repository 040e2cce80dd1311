import Negotiator from 'negotiator'

/** The contract's Content-Type, byte for byte. */
export const JSON_CONTENT_TYPE = 'application/json;charset=UTF-8'

/** Does this Accept header admit application/json? Absent means anything goes. */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept === '' || accept === '*/*' || accept === 'application/json') {
    return true
  }
  return new Negotiator({ headers: { accept } }).mediaType(['application/json']) !== undefined
}
