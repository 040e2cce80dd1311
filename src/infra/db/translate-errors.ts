import { DataAccessError, DomainError, ServiceBusyError } from '../../domain/common/errors.js'
import type { EngineTraits } from './engine/traits.js'
import { type StatementLayer, watched } from './instrumentation.js'

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
export function translateError(error: unknown, engine: EngineTraits): Error {
  if (error instanceof DomainError) return error
  const columns = engine.uniqueViolationColumns(error)
  return columns.length > 0
    ? new UniqueViolationError(columns, { cause: error })
    : new DataAccessError({ cause: error })
}

/**
 * Every driver failure leaves infra as a typed DataAccessError (or UniqueViolationError):
 * one place instead of a try/catch per query. The outermost statement layer, and the
 * guard of every other driver call (create-database.ts).
 */
export function translatingErrors(engine: EngineTraits): StatementLayer {
  const watch = { failed: (error: unknown) => translateError(error, engine) }
  return (_sql, _parameters, run) => watched(run, watch)
}

/** The same for every other driver call: connecting, BEGIN, COMMIT, ROLLBACK. */
export function translatingCalls(engine: EngineTraits) {
  return async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (error) {
      throw translateError(error, engine)
    }
  }
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
  engine: EngineTraits,
  { retryAfterSeconds, onCancelled }: CancelledReads,
): StatementLayer {
  const watch = {
    failed: (error: unknown) => {
      if (!engine.isCancellation(error)) return error
      onCancelled?.()
      return new ServiceBusyError(retryAfterSeconds, { cause: error })
    },
  }
  return (_sql, _parameters, run) => watched(run, watch)
}
