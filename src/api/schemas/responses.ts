import { type TSchema, Type } from 'typebox'
import type { ResponseHeaderName } from './documented-headers.js'

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
