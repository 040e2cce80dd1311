import { type Dialect, type DialectAdapter, type Kysely, sql } from 'kysely'
import { DialectDecorator } from './dialect-decorator.js'

/**
 * The dialect with its migrations held in one transaction that the lock itself opens
 * (migrate.ts runs them with `disableTransactions`): `acquire` opens the transaction and
 * takes the lock, COMMIT releases both. On PostgreSQL the COMMIT of a failed transaction
 * is a ROLLBACK, so a failed migration leaves nothing behind. Each database names its
 * statements (sqlite/sqlite.ts, postgres/postgres.ts).
 */
export class MigrationLockDialect extends DialectDecorator {
  constructor(
    inner: Dialect,
    private readonly acquire: readonly string[],
  ) {
    super(inner)
  }

  override createAdapter(): DialectAdapter {
    const acquire = this.acquire
    return Object.assign(Object.create(super.createAdapter()) as DialectAdapter, {
      acquireMigrationLock: async (db: Kysely<unknown>) => {
        for (const statement of acquire) await sql.raw(statement).execute(db)
      },
      releaseMigrationLock: async (db: Kysely<unknown>) => {
        await sql.raw('commit').execute(db)
      },
    })
  }
}
