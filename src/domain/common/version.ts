import { OptimisticLockError, PreconditionFailedError } from './errors.js'

/**
 * What a client says it expects of a resource's version before a write
 * (HTTP's If-Match, translated by the api layer). Absent means "no expectation".
 */
export interface VersionCondition {
  matches(version: number): boolean
}

const CONDITIONAL_ATTEMPTS = 5

/** The one check of a client's precondition: a version it does not expect fails it. */
export function requirePrecondition(
  condition: VersionCondition | undefined,
  version: number,
): void {
  if (condition && !condition.matches(version)) throw new PreconditionFailedError()
}

/**
 * A write guarded by the client's precondition, retried while the precondition still
 * holds of what is stored. `write` acts only on the state it was given and reports
 * `undefined` if that state changed meanwhile. With a named version a concurrent change
 * makes the precondition fail (412); with `If-Match: *` it does not, so the write is
 * tried again on the new state instead of failing a precondition that still holds.
 */
export async function writeWhilePreconditionHolds<State, Result>(
  condition: VersionCondition,
  read: () => Promise<State>,
  versionOf: (state: State) => number,
  write: (state: State) => Promise<Result | undefined>,
): Promise<Result> {
  for (let attempt = 0; attempt < CONDITIONAL_ATTEMPTS; attempt += 1) {
    const current = await read()
    requirePrecondition(condition, versionOf(current))
    const result = await write(current)
    if (result !== undefined) return result
  }
  throw new OptimisticLockError()
}
