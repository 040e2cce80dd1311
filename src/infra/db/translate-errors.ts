import type { Dialect } from 'kysely'
import { DataAccessError, DomainError, ServiceBusyError } from '../../domain/common/errors.js'
import type { DialectProfile } from './dialect.js'
import { wrappedDialect } from './wrapped-dialect.js'

/** A write broke a unique index; repositories turn it into the domain's own conflict. */
export class UniqueViolationError extends DataAccessError {
  constructor(
    /** The columns of the violated index, e.g. ['sign_id']. */
    readonly columns: readonly string[],
    options: { cause: unknown },
  ) {
    super(options)
  }
}

/** A driver's failure as the typed error infra answers with. */
export function translateError(error: unknown, profile: DialectProfile): Error {
  if (error instanceof DomainError) return error
  const columns = profile.uniqueViolationColumns(error)
  return columns.length > 0
    ? new UniqueViolationError(columns, { cause: error })
    : new DataAccessError({ cause: error })
}

/**
 * Wraps a Kysely dialect so that every driver failure leaves infra as a typed
 * DataAccessError (or UniqueViolationError): one place instead of a try/catch per query.
 */
export function translatingErrors(dialect: Dialect, profile: DialectProfile): Dialect {
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work()
    } catch (error) {
      throw translateError(error, profile)
    }
  }

  return wrappedDialect(dialect, { query: (_query, run) => guard(run), call: guard })
}

export interface CancelledReads {
  /** Retry-After of the busy answer to a cancelled read. */
  readonly retryAfterSeconds: number
  /** Told of every read cancelled for its time. */
  readonly onCancelled?: () => void
}

/**
 * For the long reads (member search, the todo list): a statement cancelled because it ran
 * past READ_TIMEOUT is the instance being busy (503 e.ex.fw.9005), not a failure; it has
 * changed nothing, and a retry later may find the database less loaded.
 */
export function cancelledReadsBusy(
  dialect: Dialect,
  profile: DialectProfile,
  { retryAfterSeconds, onCancelled }: CancelledReads,
): Dialect {
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work()
    } catch (error) {
      if (!profile.isCancellation(error)) throw error
      onCancelled?.()
      throw new ServiceBusyError(retryAfterSeconds, { cause: error })
    }
  }
  return wrappedDialect(dialect, { query: (_query, run) => guard(run) })
}
