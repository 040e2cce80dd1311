import {
  BusinessRuleError,
  DataAccessError,
  type DomainError,
  OptimisticLockError,
  PreconditionFailedError,
  ResourceNotFoundError,
  ResultLimitExceededError,
  ServiceBusyError,
} from '../../domain/common/errors.js'
import {
  IdempotencyKeyInFlightError,
  IdempotencyKeyReusedError,
} from '../../domain/idempotency/service.js'
import { ApiProblem } from './api-problem.js'
import { type ErrorAnswer, PROBLEMS, type ResourceErrors } from './catalogue.js'

interface Answering {
  readonly type: abstract new (...args: never[]) => DomainError
  readonly answer: (error: never) => ApiProblem | undefined
}

/** One entry: the answer is given the error of exactly its type. */
const answering = <E extends DomainError>(
  type: abstract new (...args: never[]) => E,
  answer: (error: E) => ApiProblem | undefined,
): Answering => ({ type, answer })

/** What the resources answer to their domain errors, by resource and by rule. */
interface ResourceAnswers {
  readonly notFound: ReadonlyMap<string, ErrorAnswer>
  readonly rules: ReadonlyMap<string, ErrorAnswer>
}

/**
 * Every domain error the api layer answers, with its answer: a domain error is told what
 * went wrong in the domain's terms, and only here does it become a code and a status.
 * Which resource's 404 and which rule's 409 come from the resources themselves.
 */
function domainAnswers({ notFound, rules }: ResourceAnswers): readonly Answering[] {
  return [
    answering(ResourceNotFoundError, (error) => {
      const answer = notFound.get(error.resource)
      return answer && new ApiProblem(answer, { args: [error.id] })
    }),
    answering(BusinessRuleError, (error) => {
      const answer = rules.get(error.rule)
      return answer && new ApiProblem(answer, { args: [error.subject] })
    }),
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
}

/** Turns a domain error into its ApiProblem; undefined for anything else. */
export type DomainProblem = (error: unknown) => ApiProblem | undefined

/**
 * The answers to domain errors, with each resource's 404 and broken rules. A resource's
 * error that no resource answers stays unanswered here (a 500): a test of every route
 * meets it.
 */
export function domainProblems(
  resources: readonly { readonly name: string; readonly errors: ResourceErrors }[],
): DomainProblem {
  const notFound = new Map(resources.map(({ name, errors }) => [name, errors.notFound]))
  const ruleEntries = resources.flatMap(({ errors }) => Object.entries(errors.rules))
  const rules = new Map(ruleEntries)
  if (rules.size < ruleEntries.length) throw new Error('Two resources name one business rule')
  const table = domainAnswers({ notFound, rules })
  return (error) => {
    for (const { type, answer } of table) {
      if (error instanceof type) return (answer as (error: DomainError) => ApiProblem)(error)
    }
    return undefined
  }
}
