import { IDEMPOTENCY_KEY_PATTERN } from '../idempotency/idempotency-keys.js'

/** A header as the OpenAPI document declares it (Fastify-swagger takes the schema's own keys). */
export interface HeaderDoc {
  readonly description: string
  readonly schema: Record<string, unknown>
  readonly required?: boolean
}

const text = (extra: Record<string, unknown> = {}) => ({ type: 'string', ...extra })

/** The request headers the service reads (decisions §7). */
export const REQUEST_HEADERS = {
  acceptLanguage: {
    name: 'Accept-Language',
    description: 'Language of error messages: en (the default) or ja, by q-values.',
    schema: text({ examples: ['ja'] }),
  },
  track: {
    name: 'X-Track',
    description:
      'A request id of your own, echoed in X-Track and written on every log line of the ' +
      'request, when it matches ^[A-Za-z0-9._-]{1,64}$ (otherwise a new one is made).',
    schema: text({ pattern: '^[A-Za-z0-9._-]{1,64}$' }),
  },
  ifNoneMatch: {
    name: 'If-None-Match',
    description: 'An ETag you hold: when it is still current the answer is 304 without a body.',
    schema: text({ examples: ['"1"'] }),
  },
  ifMatch: {
    name: 'If-Match',
    description:
      'The ETag you last read: the change is made only if nobody changed the resource ' +
      'since (else 412 e.ex.fw.8002).',
    schema: text({ examples: ['"1"'] }),
  },
  idempotencyKey: {
    name: 'Idempotency-Key',
    description:
      'Makes a retry safe: the first request with a key is processed and its answer kept for ' +
      '24 hours; the same request again gets that answer (with Idempotent-Replayed: true) and ' +
      'creates nothing. Another request with the key is 422 e.ex.fw.7008; the same one while ' +
      'the first is processed is 409 e.ex.fw.8003. A malformed key is 400 e.ex.fw.7006.',
    schema: text({ minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN }),
  },
} as const

/** The response headers the service sets, by their names on the wire. */
export const RESPONSE_HEADERS = {
  'X-Track': {
    description: 'The request id: your X-Track when well-formed, else a new one.',
    schema: text(),
    required: true,
  },
  ETag: {
    description: 'Strong validator of the resource state, for If-Match and If-None-Match.',
    schema: text({ examples: ['"1"'] }),
    required: true,
  },
  Location: {
    description: 'Absolute URL of the created resource.',
    schema: text({ format: 'uri' }),
    required: true,
  },
  Allow: {
    description: 'The methods the path serves.',
    schema: text({ examples: ['GET, HEAD, PUT, DELETE, OPTIONS'] }),
    required: true,
  },
  'Cache-Control': {
    description: 'Answers that carry personal data are kept by no cache.',
    schema: text({ const: 'no-store' }),
    required: true,
  },
  'WWW-Authenticate': {
    description:
      'The bearer challenge (RFC 6750): error="invalid_token" and why, or error="insufficient_scope" and the scope needed.',
    schema: text({
      examples: ['Bearer realm="api", error="insufficient_scope", scope="members:write"'],
    }),
    required: true,
  },
  'Retry-After': {
    description:
      'Seconds until the client may send again: its RATE_LIMIT window (429), or a busy instance or identity provider (503).',
    schema: text({ examples: ['42'] }),
    required: true,
  },
  'RateLimit-Limit': {
    description: 'Requests this client may send per window (RATE_LIMIT).',
    schema: text({ examples: ['600'] }),
    required: true,
  },
  'RateLimit-Remaining': {
    description: 'Requests left to this client in the current window.',
    schema: text({ examples: ['0'] }),
    required: true,
  },
  'RateLimit-Reset': {
    description: 'Seconds until the current window ends.',
    schema: text({ examples: ['42'] }),
    required: true,
  },
  'Idempotent-Replayed': {
    description: 'Present on an answer replayed for a repeated Idempotency-Key.',
    schema: text({ const: 'true' }),
  },
} as const satisfies Record<string, HeaderDoc>

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS
