import type { ErrorAnswer, ErrorCode, Texts } from './catalogue.js'
import type { Violation } from './constraints.js'

/** A failure the api layer detects itself; answered as an ApiError (send-api-error.ts). */
export class ApiProblem extends Error {
  readonly status: number
  readonly code: ErrorCode
  /** The code's message in every language. */
  readonly texts: Texts
  readonly target: string | undefined
  readonly violations: readonly Violation[]
  readonly headers: Readonly<Record<string, string>>
  /** The message's arguments: `{0}` is the first. */
  readonly args: readonly string[]

  constructor(
    answer: ErrorAnswer,
    options: {
      target?: string
      violations?: readonly Violation[]
      headers?: Record<string, string>
      args?: readonly string[]
    } = {},
  ) {
    super(answer.code)
    this.name = 'ApiProblem'
    this.status = answer.status
    this.code = answer.code
    this.texts = answer.texts
    this.target = options.target || undefined
    this.violations = options.violations ?? []
    this.headers = options.headers ?? {}
    this.args = options.args ?? []
  }
}
