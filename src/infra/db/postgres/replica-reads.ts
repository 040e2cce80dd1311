import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryResult,
  TransactionSettings,
} from 'kysely'
import { DialectDecorator } from '../engine/dialect-decorator.js'

/** After a failure on the replica, reads go to the primary for this long before it is tried again. */
export const REPLICA_RETRY_AFTER_MS = 5000

export interface ReplicaReadsOptions {
  /** The replica failed a read (connecting or running it); the primary answered instead. */
  readonly onFallback?: (error: unknown) => void
  /** A failure that says nothing about the replica's health (a statement cancelled for its time). */
  readonly isCancellation?: (error: unknown) => boolean
  readonly now?: () => number
}

/**
 * A connection of either database. It starts on the replica and moves to the primary
 * when the replica fails it before any transaction has begun on it: a lone read is run
 * again there, a transaction begins there. Inside a transaction a failure is the
 * transaction's (its snapshot cannot move), and only marks the replica down for the next.
 */
class Connection implements DatabaseConnection {
  inTransaction = false

  constructor(
    public inner: DatabaseConnection,
    public onReplica: boolean,
    private readonly reads: ReplicaFirst,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return await this.inner.executeQuery<R>(query)
    } catch (error) {
      if (!this.reads.replicaFailed(this, error) || this.inTransaction) throw error
      await this.reads.moveToPrimary(this)
      return this.inner.executeQuery<R>(query)
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize)
  }
}

class ReplicaFirst implements Driver {
  #replicaDownUntil = 0

  constructor(
    private readonly replica: Driver,
    private readonly primary: Driver,
    private readonly options: ReplicaReadsOptions,
  ) {}

  async init(): Promise<void> {
    await Promise.all([this.replica.init(), this.primary.init()])
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const now = this.options.now ?? Date.now
    if (now() >= this.#replicaDownUntil) {
      try {
        return new Connection(await this.replica.acquireConnection(), true, this)
      } catch (error) {
        this.#markDown(error)
      }
    }
    return new Connection(await this.primary.acquireConnection(), false, this)
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    const moving = connection as Connection
    try {
      await this.#driverOf(moving).beginTransaction(moving.inner, settings)
    } catch (error) {
      if (!this.replicaFailed(moving, error)) throw error
      await this.moveToPrimary(moving)
      await this.primary.beginTransaction(moving.inner, settings)
    }
    moving.inTransaction = true
  }

  async commitTransaction(connection: DatabaseConnection) {
    const moving = connection as Connection
    moving.inTransaction = false
    await this.#driverOf(moving).commitTransaction(moving.inner)
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    const moving = connection as Connection
    moving.inTransaction = false
    await this.#driverOf(moving).rollbackTransaction(moving.inner)
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const moving = connection as Connection
    await this.#driverOf(moving).releaseConnection(moving.inner)
  }

  async destroy(): Promise<void> {
    await Promise.all([this.replica.destroy(), this.primary.destroy()])
  }

  /** Whether `error` is the replica's failure: if so, the replica counts as down for a while. */
  replicaFailed(connection: Connection, error: unknown): boolean {
    if (!connection.onReplica || this.options.isCancellation?.(error)) return false
    this.#markDown(error)
    return true
  }

  /** The connection gives its replica session back and continues on the primary. */
  async moveToPrimary(connection: Connection): Promise<void> {
    await this.replica.releaseConnection(connection.inner).catch(() => undefined)
    connection.inner = await this.primary.acquireConnection()
    connection.onReplica = false
  }

  #markDown(error: unknown): void {
    this.#replicaDownUntil = (this.options.now ?? Date.now)() + REPLICA_RETRY_AFTER_MS
    this.options.onFallback?.(error)
  }

  #driverOf(connection: Connection): Driver {
    return connection.onReplica ? this.replica : this.primary
  }
}

/**
 * Reads from a streaming replica, and from the primary whenever the replica fails one:
 * for REPLICA_RETRY_AFTER_MS after a failure every read goes straight to the primary
 * instead of waiting on a replica that is down. Only reads that may be a little behind
 * use it (member search, the todo list); their read-only transactions run here too.
 * The replica's dialect in all but its driver, which holds both databases' drivers.
 */
export class ReplicaFirstDialect extends DialectDecorator {
  constructor(
    replica: Dialect,
    private readonly primary: Dialect,
    private readonly options: ReplicaReadsOptions = {},
  ) {
    super(replica)
  }

  override createDriver(): Driver {
    return new ReplicaFirst(super.createDriver(), this.primary.createDriver(), this.options)
  }
}
