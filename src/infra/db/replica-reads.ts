import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  Kysely,
  QueryResult,
  TransactionSettings,
} from 'kysely'

/** After a failure on the replica, reads go to the primary for this long before it is tried again. */
export const REPLICA_RETRY_AFTER_MS = 5000

export interface ReplicaReadsOptions {
  /** The replica failed a read (connecting or running it); the primary answered instead. */
  readonly onFallback?: (error: unknown) => void
  readonly now?: () => number
}

/** A read the primary answers, through its own Kysely (pool, timeouts, error handling). */
class PrimaryConnection implements DatabaseConnection {
  constructor(private readonly primary: Kysely<unknown>) {}
  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.primary.executeQuery<R>(query as CompiledQuery<R>)
  }
  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.primary.getExecutor().stream<R>(query as CompiledQuery<R>, chunkSize ?? 100)
  }
}

/**
 * Reads from a streaming replica, and from the primary whenever the replica fails one:
 * the read is run again there, and for REPLICA_RETRY_AFTER_MS every read goes straight
 * to the primary instead of waiting on a replica that is down. Only reads that may be a
 * little behind use it (member search, the todo list); transactions are not run here.
 */
export function replicaFirst(
  replica: Dialect,
  primary: Kysely<unknown>,
  { onFallback, now = Date.now }: ReplicaReadsOptions = {},
): Dialect {
  let replicaDownUntil = 0
  const onPrimary = new PrimaryConnection(primary)
  const failedOver = (error: unknown) => {
    replicaDownUntil = now() + REPLICA_RETRY_AFTER_MS
    onFallback?.(error)
    return onPrimary
  }

  class ReplicaConnection implements DatabaseConnection {
    constructor(readonly inner: DatabaseConnection) {}
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      try {
        return await this.inner.executeQuery<R>(query)
      } catch (error) {
        return failedOver(error).executeQuery<R>(query)
      }
    }
    streamQuery<R>(
      query: CompiledQuery,
      chunkSize?: number,
    ): AsyncIterableIterator<QueryResult<R>> {
      return this.inner.streamQuery<R>(query, chunkSize)
    }
  }

  const noTransactions = (): never => {
    throw new Error('transactions run on the primary, not on the read replica')
  }

  class ReplicaFirstDriver implements Driver {
    constructor(private readonly inner: Driver) {}
    init() {
      return this.inner.init()
    }
    async acquireConnection(): Promise<DatabaseConnection> {
      if (now() < replicaDownUntil) return onPrimary
      try {
        return new ReplicaConnection(await this.inner.acquireConnection())
      } catch (error) {
        return failedOver(error)
      }
    }
    beginTransaction(_connection: DatabaseConnection, _settings: TransactionSettings) {
      return noTransactions()
    }
    commitTransaction() {
      return noTransactions()
    }
    rollbackTransaction() {
      return noTransactions()
    }
    async releaseConnection(connection: DatabaseConnection) {
      if (connection instanceof ReplicaConnection)
        await this.inner.releaseConnection(connection.inner)
    }
    destroy() {
      return this.inner.destroy()
    }
  }

  return {
    createAdapter: () => replica.createAdapter(),
    createDriver: () => new ReplicaFirstDriver(replica.createDriver()),
    createIntrospector: (db) => replica.createIntrospector(db),
    createQueryCompiler: () => replica.createQueryCompiler(),
  }
}
