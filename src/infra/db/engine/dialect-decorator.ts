import type {
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  TransactionSettings,
} from 'kysely'

/**
 * A Kysely dialect that adds behaviour to another: every factory method forwards to the
 * inner dialect, and a subclass overrides only the one it changes (the driver, to watch
 * or route statements; the adapter, for a migration lock). The one base of every
 * dialect wrapper in infra/db, as Kysely's own dialects are classes.
 */
export class DialectDecorator implements Dialect {
  constructor(protected readonly inner: Dialect) {}

  createAdapter(): DialectAdapter {
    return this.inner.createAdapter()
  }

  createDriver(): Driver {
    return this.inner.createDriver()
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return this.inner.createIntrospector(db)
  }

  createQueryCompiler(): QueryCompiler {
    return this.inner.createQueryCompiler()
  }
}

/** A Kysely driver that forwards every call; a subclass overrides the calls it changes. */
export class DriverDecorator implements Driver {
  constructor(protected readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init()
  }

  acquireConnection(): Promise<DatabaseConnection> {
    return this.inner.acquireConnection()
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings)
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection)
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection)
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection)
  }

  destroy(): Promise<void> {
    return this.inner.destroy()
  }
}
