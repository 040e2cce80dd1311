/**
 * Typed errors the domain raises. Each carries a message code and its arguments;
 * the api layer alone decides the HTTP status and the localized text.
 */
export abstract class DomainError extends Error {
  constructor(
    readonly code: string,
    readonly args: readonly string[] = [],
  ) {
    super(`${code}${args.length > 0 ? ` (${args.join(', ')})` : ''}`)
    this.name = new.target.name
  }
}

/** The addressed resource does not exist. */
export class ResourceNotFoundError extends DomainError {}

/** A business rule forbids the operation (for example finishing a finished Todo). */
export class BusinessRuleError extends DomainError {}

/** A request asks for more results than the service gives at once. */
export class ResultLimitExceededError extends DomainError {
  constructor(
    /** The most results the service gives at once. */
    readonly limit: number,
  ) {
    super('e.ex.fw.7002')
  }
}

/** Another request changed the resource between our read and our write. */
export class OptimisticLockError extends DomainError {
  constructor() {
    super('e.ex.fw.8002')
  }
}

/** The client's precondition (its expected version) does not hold. */
export class PreconditionFailedError extends DomainError {
  constructor() {
    super('e.ex.fw.8002')
  }
}

/** The database could not be reached or failed; the cause is kept for the log only. */
export class DataAccessError extends DomainError {
  constructor(options?: { cause?: unknown }) {
    super('e.ex.fw.9002')
    if (options?.cause !== undefined) this.cause = options.cause
  }
}

/**
 * The instance has no capacity for this work now: its queue is full, the wait for a place
 * ran out, or the work passed its time budget and was cancelled. Nothing was changed; the
 * client may retry after `retryAfterSeconds`.
 */
export class ServiceBusyError extends DomainError {
  constructor(
    readonly retryAfterSeconds: number,
    options?: { cause?: unknown },
  ) {
    super('e.ex.fw.9005')
    if (options?.cause !== undefined) this.cause = options.cause
  }
}
