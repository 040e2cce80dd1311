import type { MessageArgs } from '../messages/index.js'

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

/** The order of a field's details (docs/contract/decisions.md §3). */
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

/** One broken constraint of one field: a `details` entry of the answer. */
export interface Violation {
  readonly constraint: ConstraintName
  /** Field path, e.g. `credential.password`. */
  readonly target: string
  readonly attributes?: MessageArgs
}
