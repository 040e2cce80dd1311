import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryResult,
  TransactionSettings,
} from 'kysely'
import { DataAccessError, DomainError } from '../../domain/common/errors.js'
import type { DialectProfile } from './dialect.js'

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

/**
 * Wraps a Kysely dialect so that every driver failure leaves infra as a typed
 * DataAccessError (or UniqueViolationError): one place instead of a try/catch per query.
 */
export function translatingErrors(dialect: Dialect, profile: DialectProfile): Dialect {
  const translate = (error: unknown): Error => {
    if (error instanceof DomainError) return error
    const columns = profile.uniqueViolationColumns(error)
    return columns.length > 0
      ? new UniqueViolationError(columns, { cause: error })
      : new DataAccessError({ cause: error })
  }
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work()
    } catch (error) {
      throw translate(error)
    }
  }

  class TranslatingConnection implements DatabaseConnection {
    constructor(readonly inner: DatabaseConnection) {}
    executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      return guard(() => this.inner.executeQuery<R>(query))
    }
    streamQuery<R>(
      query: CompiledQuery,
      chunkSize?: number,
    ): AsyncIterableIterator<QueryResult<R>> {
      return this.inner.streamQuery<R>(query, chunkSize)
    }
  }

  const unwrap = (connection: DatabaseConnection) =>
    connection instanceof TranslatingConnection ? connection.inner : connection

  class TranslatingDriver implements Driver {
    constructor(readonly inner: Driver) {}
    init() {
      return guard(() => this.inner.init())
    }
    async acquireConnection() {
      return new TranslatingConnection(await guard(() => this.inner.acquireConnection()))
    }
    beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
      return guard(() => this.inner.beginTransaction(unwrap(connection), settings))
    }
    commitTransaction(connection: DatabaseConnection) {
      return guard(() => this.inner.commitTransaction(unwrap(connection)))
    }
    rollbackTransaction(connection: DatabaseConnection) {
      return guard(() => this.inner.rollbackTransaction(unwrap(connection)))
    }
    releaseConnection(connection: DatabaseConnection) {
      return this.inner.releaseConnection(unwrap(connection))
    }
    destroy() {
      return this.inner.destroy()
    }
  }

  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new TranslatingDriver(dialect.createDriver()),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  }
}
