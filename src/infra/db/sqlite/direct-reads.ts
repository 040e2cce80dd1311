import type SqliteDatabase from 'better-sqlite3'
import type { DatabaseConnection, Driver } from 'kysely'
import { DialectDecorator, DriverDecorator } from '../engine/dialect-decorator.js'
import type { DirectReads } from '../engine/traits.js'

/** Counts who holds or awaits the one connection: Kysely queues every use of it. */
class CountingUsers extends DriverDecorator {
  constructor(
    inner: Driver,
    private readonly users: { count: number },
  ) {
    super(inner)
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    this.users.count += 1
    try {
      return await super.acquireConnection()
    } catch (error) {
      this.users.count -= 1
      throw error
    }
  }

  override releaseConnection(connection: DatabaseConnection): Promise<void> {
    return super.releaseConnection(connection).finally(() => {
      this.users.count -= 1
    })
  }
}

/**
 * SQLite's dialect, with reads run at once, synchronously, while no statement or
 * transaction holds the one connection or waits for it; otherwise a read takes Kysely's
 * path and its queue, so that it never sees an open transaction's writes.
 */
export class DirectReadsDialect extends DialectDecorator {
  readonly #users = { count: 0 }

  override createDriver(): Driver {
    return new CountingUsers(super.createDriver(), this.#users)
  }

  /** The direct reads of `prepare`'s statements (sqlite.ts keeps them prepared). */
  readsOf(prepare: (sql: string) => SqliteDatabase.Statement): DirectReads {
    const users = this.#users
    return {
      ready: (sql) => users.count === 0 && prepare(sql).reader,
      run: (sql, parameters, atMostOne) => {
        const statement = prepare(sql)
        if (!atMostOne) return statement.all(parameters) as unknown[]
        // `get` stops at the first row; `all` steps on to find there is no second.
        const row: unknown = statement.get(parameters)
        return row === undefined ? [] : [row]
      },
    }
  }
}
