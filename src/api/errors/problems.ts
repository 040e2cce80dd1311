import type { MessageArgs, MessageKey } from '../messages/index.js'

/** The framework-level failures the api layer itself detects, with their status. */
export const PROBLEMS = {
  resourceNotFound: { status: 404, code: 'e.ex.fw.5001' },
  methodNotAllowed: { status: 405, code: 'e.ex.fw.6001' },
  notAcceptable: { status: 406, code: 'e.ex.fw.6002' },
  unsupportedMediaType: { status: 415, code: 'e.ex.fw.6003' },
  bodyValidation: { status: 400, code: 'e.ex.fw.7001' },
  parameterValidation: { status: 400, code: 'e.ex.fw.7002' },
  malformedBody: { status: 400, code: 'e.ex.fw.7003' },
  unknownField: { status: 400, code: 'e.ex.fw.7004' },
  bodyTypeMismatch: { status: 400, code: 'e.ex.fw.7005' },
  parameterTypeMismatch: { status: 400, code: 'e.ex.fw.7006' },
  bodyTooLarge: { status: 413, code: 'e.ex.fw.7007' },
  expectationFailed: { status: 417, code: 'e.ex.fw.7006' },
  systemError: { status: 500, code: 'e.ex.fw.9001' },
  dataAccessFailure: { status: 500, code: 'e.ex.fw.9002' },
} as const satisfies Record<string, { status: number; code: MessageKey }>

export type Problem = (typeof PROBLEMS)[keyof typeof PROBLEMS]

/** Names of the validation constraints a `details` entry can carry. */
export type ConstraintName =
  | 'NotNull'
  | 'NotEmpty'
  | 'Null'
  | 'Size'
  | 'Min'
  | 'Max'
  | 'Pattern'
  | 'Email'
  | 'Past'
  | 'ExistInCodeList'
  | 'PathMatch'
  | 'UniqueElements'
  | 'ResultLimit'

/** The order of a field's details (decisions §3). */
export const CONSTRAINT_ORDER: readonly ConstraintName[] = [
  'NotNull',
  'NotEmpty',
  'Null',
  'Size',
  'Min',
  'Max',
  'Pattern',
  'Email',
  'Past',
  'ExistInCodeList',
  'PathMatch',
  'UniqueElements',
  'ResultLimit',
]

export interface Violation {
  readonly constraint: ConstraintName
  /** Field path, e.g. `credential.password`. */
  readonly target: string
  readonly attributes?: MessageArgs
}

/** A failure detected by the api layer; rendered as ApiError by the error handler. */
export class ApiProblem extends Error {
  readonly status: number
  readonly code: MessageKey
  readonly target: string | undefined
  readonly violations: readonly Violation[]
  readonly headers: Readonly<Record<string, string>>

  constructor(
    problem: Problem,
    options: {
      target?: string
      violations?: readonly Violation[]
      headers?: Record<string, string>
    } = {},
  ) {
    super(problem.code)
    this.name = 'ApiProblem'
    this.status = problem.status
    this.code = problem.code
    this.target = options.target || undefined
    this.violations = options.violations ?? []
    this.headers = options.headers ?? {}
  }
}
