/** The error body of every failure (spec: ApiError). `target` and `details` are omitted when empty. */
export interface ApiErrorBody {
  readonly code: string
  readonly message: string
  readonly target?: string
  readonly details?: readonly ApiErrorBody[]
}
