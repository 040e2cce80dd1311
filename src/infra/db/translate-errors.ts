import type { Dialect } from 'kysely'
import { DataAccessError, DomainError } from '../../domain/common/errors.js'
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
