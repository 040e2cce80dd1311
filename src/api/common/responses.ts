import { type TSchema, Type } from 'typebox'

/** The error body of every failure (spec: ApiError); `target` and `details` are omitted when empty. */
export const ApiErrorSchema = Type.Object(
  {
    code: Type.String({
      description: 'Error code, or inside details the violated constraint (NotNull, Size, …).',
    }),
    message: Type.String({ description: 'Message for the code, in the Accept-Language locale.' }),
    target: Type.Optional(
      Type.String({ description: 'Path of the offending field, e.g. credential.password.' }),
    ),
    details: Type.Optional(Type.Array(Type.Ref('ApiError'))),
  },
  {
    $id: 'ApiError',
    additionalProperties: false,
    examples: [
      {
        code: 'e.ex.fw.7001',
        message: 'Validation error occurred on item in the request body.',
        details: [{ code: 'NotNull', message: 'todoTitle may not be null.', target: 'todoTitle' }],
      },
    ],
  },
)

const ERRORS = {
  400: 'Malformed or invalid request (e.ex.fw.7001 to 7006); details name each violated rule.',
  404: 'No such resource (e.ex.fw.5001, e.ex.td.5001, e.ex.mm.5001).',
  406: 'The Accept header admits no application/json (e.ex.fw.6002).',
  409: 'A business rule (e.ex.td.8001, e.ex.mm.8001), a concurrent change (e.ex.fw.8002), or a request with the same Idempotency-Key still being processed (e.ex.fw.8003).',
  412: 'If-Match names another version of the resource (e.ex.fw.8002).',
  413: 'The body is larger than the limit (e.ex.fw.7007).',
  415: 'The body is not application/json (e.ex.fw.6003).',
  422: 'The Idempotency-Key was first used with another request (e.ex.fw.7008).',
  500: 'System error (e.ex.fw.9001, e.ex.fw.9002): the cause is logged, never answered.',
} as const

/** The ApiError responses a route can give, for validation of nothing and for the OpenAPI document. */
export function errorResponses(...statuses: (keyof typeof ERRORS)[]): Record<number, TSchema> {
  return Object.fromEntries(
    [...statuses, 406, 500].map((status) => [
      status,
      Type.Ref('ApiError', { description: ERRORS[status as keyof typeof ERRORS] }),
    ]),
  )
}

/** A response without a body (204, 304, OPTIONS' 200). */
export function noBody(description: string): TSchema {
  return Type.Null({ description })
}
