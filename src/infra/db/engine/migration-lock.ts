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
    // Kysely releases the lock in a `finally`, also after `acquire` failed (a lock wait
    // past DB_TIMEOUT). Then nothing is held, and a COMMIT would fail on SQLite ("no
    // transaction is active") in place of the error that says why: it is skipped.
    const notHeld = new WeakSet<Kysely<unknown>>()
    return Object.assign(Object.create(super.createAdapter()) as DialectAdapter, {
      acquireMigrationLock: async (db: Kysely<unknown>) => {
        try {
          for (const statement of acquire) await sql.raw(statement).execute(db)
        } catch (error) {
          notHeld.add(db)
          // PostgreSQL's transaction is open, and aborted; SQLite's never began.
          await sql
            .raw('rollback')
            .execute(db)
            .catch(() => undefined)
          throw error
        }
      },
      releaseMigrationLock: async (db: Kysely<unknown>) => {
        if (notHeld.delete(db)) return
        await sql.raw('commit').execute(db)
      },
    })
  }
}
