import type { ErrorCode } from '../../src/api/errors/catalogue.js'
import { en } from '../../src/api/messages/en.js'
import { ANSWERS } from '../../src/resources/index.js'

/** What the server under test has switched on: the codes that only those parts answer. */
export interface ServerFeatures {
  readonly authentication: boolean
  readonly rateLimit: boolean
}

/** Codes that belong to one part of the service alone (decisions §2). */
const CODES_OF_FEATURES: Readonly<Record<string, keyof ServerFeatures>> = {
  'e.ex.fw.6004': 'authentication',
  'e.ex.fw.6005': 'authentication',
  'e.ex.fw.9004': 'authentication',
  'e.ex.fw.6006': 'rateLimit',
}

/**
 * A placeholder of the catalogue left in a message (`{0}`, `{max}`): only the names the
 * messages use, since a value put in a message may hold braces of its own (an id `{}`).
 */
const PLACEHOLDER = new RegExp(
  [
    ...new Set(
      [...Object.values(en), ...[...ANSWERS.values()].flat().map(({ texts }) => texts.en)].flatMap(
        (text) => text.match(/\{\w+\}/g) ?? [],
      ),
    ),
  ]
    .map((placeholder) => placeholder.replace(/[{}]/g, '\\$&'))
    .join('|'),
)

/**
 * The ways an ApiError answer fails to name its cause: a code outside the catalogue, a
 * status the catalogue does not give that code, a code of a part that is switched off,
 * or a message (or detail message) with a placeholder left in it. None for an answer
 * that is no ApiError.
 */
export function causeViolations(status: number, body: unknown, features: ServerFeatures): string[] {
  if (typeof body !== 'object' || body === null) return []
  const { code, message, details } = body as {
    code?: unknown
    message?: unknown
    details?: unknown
  }
  if (typeof code !== 'string' || typeof message !== 'string') return []
  const statuses = ANSWERS.get(code as ErrorCode)?.map((answer) => answer.status)
  if (statuses === undefined) return [`${code} is no code of the catalogue`]
  const violations: string[] = []
  if (!statuses.includes(status)) {
    violations.push(`${code} is answered with ${statuses.join(' or ')}, not ${status}`)
  }
  const feature = CODES_OF_FEATURES[code]
  if (feature && !features[feature]) violations.push(`${code} belongs to ${feature}, which is off`)
  const messages = [
    message,
    ...(Array.isArray(details)
      ? details.map((detail) => (detail as { message?: unknown }).message)
      : []),
  ]
  for (const text of messages) {
    if (typeof text === 'string' && PLACEHOLDER.test(text))
      violations.push(`unfilled placeholder in "${text}"`)
  }
  return violations
}
