import type { MessageArgs, MessageKey } from '../messages/index.js'
import { answer, type ErrorAnswer } from './catalogue.js'

/** The failures the api layer itself detects, each an answer of the error catalogue. */
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
  expectationFailed: answer('e.ex.fw.7006', 417),
  headersTooLarge: answer('e.ex.fw.7006', 431),
  rangeNotSatisfiable: answer('e.ex.fw.7006', 416),
  requestTimeout: answer('e.ex.fw.7003', 408),
  preconditionFailed: answer('e.ex.fw.8002', 412),
  systemError: answer('e.ex.fw.9001'),
  dataAccessFailure: answer('e.ex.fw.9002'),
  serviceBusy: answer('e.ex.fw.9005'),
} as const satisfies Record<string, ErrorAnswer>

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
  /** The message's arguments: `{0}` is the first. */
  readonly args: readonly string[]

  constructor(
    problem: Problem,
    options: {
      target?: string
      violations?: readonly Violation[]
      headers?: Record<string, string>
      args?: readonly string[]
    } = {},
  ) {
    super(problem.code)
    this.name = 'ApiProblem'
    this.status = problem.status
    this.code = problem.code
    this.target = options.target || undefined
    this.violations = options.violations ?? []
    this.headers = options.headers ?? {}
    this.args = options.args ?? []
  }
}
