import { type Static, Type } from 'typebox'

/**
 * The body of every failure (the contract's ApiError), as the OpenAPI document publishes
 * it; `target` and `details` are omitted when empty.
 */
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
  { $id: 'ApiError', additionalProperties: false },
)

/** The schema's type, its `details` (a reference to itself, unknown to TypeBox) filled in. */
export type ApiErrorBody = Omit<Static<typeof ApiErrorSchema>, 'details'> & {
  readonly details?: readonly ApiErrorBody[]
}
