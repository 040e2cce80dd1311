import {
  type BusinessRule,
  BusinessRuleError,
  DataAccessError,
  type DomainError,
  OptimisticLockError,
  PreconditionFailedError,
  type Resource,
  ResourceNotFoundError,
  ResultLimitExceededError,
  ServiceBusyError,
} from '../../domain/common/errors.js'
import {
  IdempotencyKeyInFlightError,
  IdempotencyKeyReusedError,
} from '../../domain/idempotency/service.js'
import { ApiProblem } from './api-problem.js'
import { type ErrorAnswer, PROBLEMS } from './catalogue.js'

/** Each resource's 404 (a resource added to the domain must be given one here). */
const NOT_FOUND: Readonly<Record<Resource, ErrorAnswer>> = {
  todo: PROBLEMS.todoNotFound,
  member: PROBLEMS.memberNotFound,
}

/** Each business rule's 409 (likewise, a rule added must be given its code). */
const BROKEN_RULE: Readonly<Record<BusinessRule, ErrorAnswer>> = {
  'todo-already-finished': PROBLEMS.todoAlreadyFinished,
  'sign-id-in-use': PROBLEMS.signIdInUse,
}

interface Answering {
  readonly type: abstract new (...args: never[]) => DomainError
  readonly answer: (error: never) => ApiProblem
}

/** One entry: the answer is given the error of exactly its type. */
const answering = <E extends DomainError>(
  type: abstract new (...args: never[]) => E,
  answer: (error: E) => ApiProblem,
): Answering => ({ type, answer })

/**
 * Every domain error the api layer answers, with its answer: a domain error is told what
 * went wrong in the domain's terms, and only here does it become a code and a status.
 */
const DOMAIN_ANSWERS: readonly Answering[] = [
  answering(
    ResourceNotFoundError,
    (error) => new ApiProblem(NOT_FOUND[error.resource], { args: [error.id] }),
  ),
  answering(
    BusinessRuleError,
    (error) => new ApiProblem(BROKEN_RULE[error.rule], { args: [error.subject] }),
  ),
  // The only request that can ask for more than a limit is the unpaged member search.
  answering(
    ResultLimitExceededError,
    (error) =>
      new ApiProblem(PROBLEMS.parameterValidation, {
        violations: [
          { constraint: 'ResultLimit', target: 'unpaged', attributes: { max: error.limit } },
        ],
      }),
  ),
  answering(OptimisticLockError, () => new ApiProblem(PROBLEMS.changedMeanwhile)),
  answering(PreconditionFailedError, () => new ApiProblem(PROBLEMS.preconditionFailed)),
  answering(DataAccessError, () => new ApiProblem(PROBLEMS.dataAccessFailure)),
  answering(
    ServiceBusyError,
    (error) =>
      new ApiProblem(PROBLEMS.serviceBusy, {
        headers: { 'retry-after': String(error.retryAfterSeconds) },
      }),
  ),
  answering(IdempotencyKeyReusedError, () => new ApiProblem(PROBLEMS.idempotencyKeyReused)),
  answering(IdempotencyKeyInFlightError, () => new ApiProblem(PROBLEMS.idempotencyKeyInFlight)),
]

/** The answer to a domain error; undefined for anything else. */
export function domainProblem(error: unknown): ApiProblem | undefined {
  for (const { type, answer } of DOMAIN_ANSWERS) {
    if (error instanceof type) return (answer as (error: DomainError) => ApiProblem)(error)
  }
  return undefined
}
