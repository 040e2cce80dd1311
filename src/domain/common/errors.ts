/**
 * Typed errors the domain raises: what went wrong, in the domain's terms. The api layer
 * alone turns each into an error code, an HTTP status and a localized message
 * (api/errors/domain-errors.ts), so no code of the contract is written here.
 */
export abstract class DomainError extends Error {
  constructor(description: string) {
    super(description)
    this.name = new.target.name
  }
}

/** The addressed resource does not exist; `resource` is its module's name (`todo`). */
export class ResourceNotFoundError extends DomainError {
  constructor(
    readonly resource: string,
    readonly id: string,
  ) {
    super(`no ${resource} ${id}`)
  }
}

/**
 * A business rule forbids the operation: `rule` is one its resource's domain names
 * (`todo-already-finished`), `subject` what it is about (an id, a sign id).
 */
export class BusinessRuleError extends DomainError {
  constructor(
    readonly rule: string,
    readonly subject: string,
  ) {
    super(`${rule}: ${subject}`)
  }
}

/** A request asks for more results than the service gives at once. */
export class ResultLimitExceededError extends DomainError {
  constructor(
    /** The most results the service gives at once. */
    readonly limit: number,
  ) {
    super(`more than ${limit} results`)
  }
}

/** Another request changed the resource between our read and our write. */
export class OptimisticLockError extends DomainError {
  constructor() {
    super('the resource changed meanwhile')
  }
}

/** The client's precondition (its expected version) does not hold. */
export class PreconditionFailedError extends DomainError {
  constructor() {
    super('the expected version is not the current one')
  }
}

/** The database could not be reached or failed; the cause is kept for the log only. */
export class DataAccessError extends DomainError {
  constructor(options?: { cause?: unknown }) {
    super('the database failed')
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
    super('busy')
    if (options?.cause !== undefined) this.cause = options.cause
  }
}
