import { en } from '../messages/en.js'
import type { Locale, MessageKey } from '../messages/index.js'
import { ja } from '../messages/ja.js'

/** An error code of the contract: `e.ex.fw.5001` (the service's own), `e.ex.td.5001` (a resource's). */
export type ErrorCode = `e.${string}`

/** One error code of the contract: how it is answered and, for the OpenAPI document, when. */
export interface CatalogueEntry {
  /** The HTTP status the code is answered with. */
  readonly status: number
  /** When the code is answered, for the OpenAPI document. */
  readonly description: string
  /** The message arguments of the document's example (an id, a sign id). */
  readonly exampleArgs?: readonly string[]
}

/** A message in every language the service speaks; `{0}` is its first argument. */
export type Texts = Readonly<Record<Locale, string>>

/**
 * An answer of the API: an error code with its status (the catalogue's, unless HTTP's
 * own), when it is given, and its message in every language.
 */
export interface ErrorAnswer {
  readonly status: number
  readonly code: ErrorCode
  readonly description: string
  readonly exampleArgs: readonly string[]
  readonly texts: Texts
}

/** The service's own codes (`e.ex.fw.*`): the message catalogues hold each of them. */
type ServiceCode = Extract<MessageKey, `e.${string}`>

/**
 * The catalogue of the service's own error codes, keyed by code (each resource keeps its
 * codes in its own, resources/todo/api/errors.ts): every answer's status is decided here (the code's own,
 * or one of HTTP's own in PROBLEMS below), the OpenAPI document takes its descriptions and
 * examples from here, and the messages (messages/en.ts, ja.ts) are keyed by the same
 * codes, so the three cannot disagree. The codes answered with a status
 * of HTTP's own: `e.ex.fw.8002` with 412 when If-Match fails, `e.ex.fw.7006` with 417 for
 * an Expect the service does not meet, 431 for headers too large and 416 for a Range
 * outside a static file, `e.ex.fw.7003` with 408 for a request not received in time.
 */
export const ERROR_CATALOGUE = {
  'e.ex.fw.5001': { status: 404, description: 'The path names no resource.' },
  'e.ex.fw.6001': { status: 405, description: 'The path does not serve this method (see Allow).' },
  'e.ex.fw.6002': { status: 406, description: 'The Accept header admits no application/json.' },
  'e.ex.fw.6003': {
    status: 415,
    description:
      'The body is not application/json, or has a charset other than UTF-8 or a Content-Encoding.',
  },
  'e.ex.fw.6004': {
    status: 401,
    description:
      'Authentication is on (AUTH_JWKS_URL) and the request has no valid bearer token: missing, malformed, expired, or not signed by the provider for this issuer and audience (WWW-Authenticate says which).',
  },
  'e.ex.fw.6005': {
    status: 403,
    description:
      'The bearer token is valid but lacks the scope the operation needs (the message names it).',
    exampleArgs: ['members:write'],
  },
  'e.ex.fw.6006': {
    status: 429,
    description:
      'More requests than RATE_LIMIT allows this client in the current window; Retry-After says when to try again.',
    exampleArgs: ['42'],
  },
  'e.ex.fw.7001': {
    status: 400,
    description: 'The body breaks a rule; details name each violated constraint and field.',
  },
  'e.ex.fw.7002': {
    status: 400,
    description: 'A query parameter breaks a rule; details name each violated constraint.',
  },
  'e.ex.fw.7003': { status: 400, description: 'The body is missing, not UTF-8, or not JSON.' },
  'e.ex.fw.7004': {
    status: 400,
    description: 'The body has a field the resource does not have (target names it).',
  },
  'e.ex.fw.7005': {
    status: 400,
    description: 'A body value has the wrong JSON type or format (target names it).',
  },
  'e.ex.fw.7006': {
    status: 400,
    description: 'A query parameter, header or path value cannot be converted (target names it).',
  },
  'e.ex.fw.7007': { status: 413, description: 'The body is larger than BODY_LIMIT bytes.' },
  'e.ex.fw.7008': {
    status: 422,
    description: 'The Idempotency-Key was first used with a different request.',
  },
  'e.ex.fw.8001': { status: 409, description: 'A business rule forbids the operation.' },
  'e.ex.fw.8002': {
    status: 409,
    description: 'Another request changed the resource first.',
  },
  'e.ex.fw.8003': {
    status: 409,
    description: 'A request with the same Idempotency-Key is still being processed.',
  },
  'e.ex.fw.9001': { status: 500, description: 'System error; the cause is logged, not answered.' },
  'e.ex.fw.9002': { status: 500, description: 'The database failed or did not answer in time.' },
  'e.ex.fw.9003': { status: 500, description: 'System error.' },
  'e.ex.fw.9004': {
    status: 503,
    description:
      'Authentication is on and the key set of the identity provider cannot be fetched: requests are refused until it answers (fail closed).',
  },
  'e.ex.fw.9005': {
    status: 503,
    description:
      'The instance is busy: the places and the queue of this kind of expensive work (member search, the todo list, password hashing) are taken, the wait for a place ran out, or a search statement passed READ_TIMEOUT and was cancelled. Nothing was changed; Retry-After says when to try again.',
  },
  'e.ex.fw.9999': { status: 500, description: 'Unhandled system error.' },
} as const satisfies Record<ServiceCode, CatalogueEntry>

/** When a code is answered with a status of HTTP's own (PROBLEMS below names them). */
const OWN_STATUS_DESCRIPTIONS: Readonly<Record<string, string>> = {
  '412 e.ex.fw.8002': 'If-Match names another version of the resource.',
  '417 e.ex.fw.7006': 'An Expect header other than 100-continue (target Expect).',
  '431 e.ex.fw.7006': 'The request line and headers are larger than the server reads.',
  '416 e.ex.fw.7006':
    'A Range no byte of the file satisfies (target Range; Content-Range gives its length).',
  '408 e.ex.fw.7003': 'The request was not received within HEADERS_TIMEOUT or REQUEST_TIMEOUT.',
}

/** The code answered with the catalogue's status, or with `status` where HTTP has its own. */
export function answer<C extends ServiceCode>(
  code: C,
  status: number = ERROR_CATALOGUE[code].status,
): ErrorAnswer & { readonly code: C } {
  const entry: CatalogueEntry = ERROR_CATALOGUE[code]
  return {
    status,
    code,
    description: OWN_STATUS_DESCRIPTIONS[`${status} ${code}`] ?? entry.description,
    exampleArgs: entry.exampleArgs ?? [],
    texts: { en: en[code], ja: ja[code] },
  }
}

/** Every answer the service gives by name: a code, with the catalogue's status or HTTP's own. */
export const PROBLEMS = {
  resourceNotFound: answer('e.ex.fw.5001'),
  methodNotAllowed: answer('e.ex.fw.6001'),
  notAcceptable: answer('e.ex.fw.6002'),
  unsupportedMediaType: answer('e.ex.fw.6003'),
  unauthenticated: answer('e.ex.fw.6004'),
  insufficientScope: answer('e.ex.fw.6005'),
  identityProviderUnavailable: answer('e.ex.fw.9004'),
  tooManyRequests: answer('e.ex.fw.6006'),
  bodyValidation: answer('e.ex.fw.7001'),
  parameterValidation: answer('e.ex.fw.7002'),
  malformedBody: answer('e.ex.fw.7003'),
  unknownField: answer('e.ex.fw.7004'),
  bodyTypeMismatch: answer('e.ex.fw.7005'),
  parameterTypeMismatch: answer('e.ex.fw.7006'),
  bodyTooLarge: answer('e.ex.fw.7007'),
  idempotencyKeyReused: answer('e.ex.fw.7008'),
  businessRule: answer('e.ex.fw.8001'),
  changedMeanwhile: answer('e.ex.fw.8002'),
  idempotencyKeyInFlight: answer('e.ex.fw.8003'),
  expectationFailed: answer('e.ex.fw.7006', 417),
  headersTooLarge: answer('e.ex.fw.7006', 431),
  rangeNotSatisfiable: answer('e.ex.fw.7006', 416),
  requestTimeout: answer('e.ex.fw.7003', 408),
  preconditionFailed: answer('e.ex.fw.8002', 412),
  systemError: answer('e.ex.fw.9001'),
  dataAccessFailure: answer('e.ex.fw.9002'),
  serviceBusy: answer('e.ex.fw.9005'),
} as const satisfies Record<string, ErrorAnswer>

/**
 * Statuses answered to bytes Node could not take as a request, before any route is
 * known: they carry X-Track and no header of a route.
 */
export const BEFORE_ROUTING_STATUSES: ReadonlySet<number> = new Set([408, 431])

/** A resource's own error code: its entry and its message in every language. */
export interface ResourceErrorEntry extends CatalogueEntry {
  readonly texts: Texts
}

/** A resource's codes as answers, keyed by code (resources/todo/api/errors.ts). */
export function resourceAnswers<
  const Table extends Readonly<Record<ErrorCode, ResourceErrorEntry>>,
>(table: Table): { readonly [Code in keyof Table]: ErrorAnswer } {
  const answers = Object.entries(table).map(([code, entry]) => [
    code,
    {
      status: entry.status,
      code: code as ErrorCode,
      description: entry.description,
      exampleArgs: entry.exampleArgs ?? [],
      texts: entry.texts,
    },
  ])
  return Object.fromEntries(answers) as { readonly [Code in keyof Table]: ErrorAnswer }
}

/** What a resource answers of its own, and which of its answers meet its domain errors. */
export interface ResourceErrors {
  /** Every code of the resource, as answers. */
  readonly answers: Readonly<Record<ErrorCode, ErrorAnswer>>
  /** The answer to ResourceNotFoundError of this resource (its 404). */
  readonly notFound: ErrorAnswer
  /** The answer to each business rule its domain enforces (BusinessRuleError), by rule. */
  readonly rules: Readonly<Record<string, ErrorAnswer>>
}

/** Every answer of the service's own catalogue: each code with its status, then HTTP's own. */
export const SERVICE_ANSWERS: readonly ErrorAnswer[] = [
  ...(Object.keys(ERROR_CATALOGUE) as ServiceCode[]).map((code) => answer(code)),
  ...Object.values(PROBLEMS).filter(({ code, status }) => ERROR_CATALOGUE[code].status !== status),
]

/**
 * Every answer the service can give: its own and each resource's, by code (a code answered
 * with a status of HTTP's own has several). A code two resources claim is refused.
 */
export function catalogueOf(
  resources: readonly { readonly name: string; readonly errors: ResourceErrors }[],
): ReadonlyMap<ErrorCode, readonly ErrorAnswer[]> {
  const byCode = new Map<ErrorCode, ErrorAnswer[]>()
  for (const answer of SERVICE_ANSWERS)
    byCode.set(answer.code, [...(byCode.get(answer.code) ?? []), answer])
  for (const { name, errors } of resources) {
    for (const answer of Object.values(errors.answers)) {
      if (byCode.has(answer.code)) throw new Error(`${name} claims ${answer.code}, which is taken`)
      byCode.set(answer.code, [answer])
    }
  }
  return byCode
}
