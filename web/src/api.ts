import { type ApiClient, ApiError, createApiClient } from '../../clients/typescript/src/client.js'
import type { Messages } from './i18n/en.js'
import type { Language } from './i18n/languages.js'

export { type ApiClient, ApiError }

/** The typed client, on this page's own origin, asking for messages in `language`. */
export function apiFor(language: Language): ApiClient {
  return createApiClient({ baseUrl: window.location.origin, acceptLanguage: language })
}

/** A failed call, in words for the reader: the service's own message where it sent one. */
export interface Problem {
  readonly message: string
  /** Messages that belong to one form field, by the field's name. */
  readonly fields: Readonly<Record<string, readonly string[]>>
  /** Messages of the service that name no field of the form. */
  readonly others: readonly string[]
  /** The request's X-Track id, which finds it in the service's logs. */
  readonly trackId: string | undefined
  readonly status: number | undefined
  readonly code: string | undefined
}

/**
 * `error` as a Problem. `fieldOf` maps an ApiError target (`credential.password`) to a
 * field of the form (`password`), or to nothing when the form has no such field.
 */
export function problemOf(
  error: unknown,
  t: Messages,
  fieldOf: (target: string) => string | undefined = () => undefined,
): Problem {
  if (!(error instanceof ApiError)) {
    // fetch rejects with a TypeError when the service cannot be reached at all.
    if (error instanceof TypeError) {
      return {
        message: t.unreachable,
        fields: {},
        others: [],
        trackId: undefined,
        status: undefined,
        code: undefined,
      }
    }
    throw error
  }
  const fields: Record<string, string[]> = {}
  const others: string[] = []
  const causes = error.details.length > 0 ? error.details : [error]
  for (const cause of causes) {
    const field = cause.target === undefined ? undefined : fieldOf(cause.target)
    if (field === undefined) {
      if (cause !== error) others.push(cause.message)
    } else {
      fields[field] = [...(fields[field] ?? []), cause.message]
    }
  }
  return {
    message: error.message,
    fields,
    others,
    trackId: error.trackId,
    status: error.status,
    code: error.code,
  }
}
