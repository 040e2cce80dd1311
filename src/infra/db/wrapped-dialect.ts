import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryResult,
  TransactionSettings,
} from 'kysely'

export interface DialectWrapping {
  /** Runs every statement: call `run` for the real one; default: as is. */
  query?<R>(query: CompiledQuery, run: () => Promise<QueryResult<R>>): Promise<QueryResult<R>>
  /** Runs every other driver call (connect, begin, commit, rollback); default: as is. */
  call?<T>(work: () => Promise<T>): Promise<T>
  /** Told when a connection is asked for, and when one is given back. */
  onAcquire?(): void
  onRelease?(): void
}

/**
 * A Kysely dialect whose statements, and optionally every other driver call, go through
 * the given functions: the one way the infra layer adds behaviour around a driver
 * (typed errors, spans) without touching it.
 */
export function wrappedDialect(dialect: Dialect, wrapping: DialectWrapping): Dialect {
  const call = wrapping.call ?? (<T>(work: () => Promise<T>) => work())
  const query =
    wrapping.query ?? (<R>(_query: CompiledQuery, run: () => Promise<QueryResult<R>>) => run())

  class WrappedConnection implements DatabaseConnection {
    constructor(readonly inner: DatabaseConnection) {}
    executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
      return query(compiled, () => this.inner.executeQuery<R>(compiled))
    }
    streamQuery<R>(
      query: CompiledQuery,
      chunkSize?: number,
    ): AsyncIterableIterator<QueryResult<R>> {
      return this.inner.streamQuery<R>(query, chunkSize)
    }
  }

  const unwrap = (connection: DatabaseConnection) =>
    connection instanceof WrappedConnection ? connection.inner : connection

  const driver = (inner: Driver): Driver => ({
    init: () => call(() => inner.init()),
    acquireConnection: async () => {
      wrapping.onAcquire?.()
      try {
        return new WrappedConnection(await call(() => inner.acquireConnection()))
      } catch (error) {
        wrapping.onRelease?.()
        throw error
      }
    },
    beginTransaction: (connection: DatabaseConnection, settings: TransactionSettings) =>
      call(() => inner.beginTransaction(unwrap(connection), settings)),
    commitTransaction: (connection: DatabaseConnection) =>
      call(() => inner.commitTransaction(unwrap(connection))),
    rollbackTransaction: (connection: DatabaseConnection) =>
      call(() => inner.rollbackTransaction(unwrap(connection))),
    releaseConnection: (connection: DatabaseConnection) =>
      inner.releaseConnection(unwrap(connection)).finally(() => wrapping.onRelease?.()),
    destroy: () => inner.destroy(),
  })

  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => driver(dialect.createDriver()),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  }
}
