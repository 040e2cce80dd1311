import { type Dialect, type DialectAdapter, type Kysely, sql } from 'kysely'

/**
 * The dialect with its migrations held in one transaction that the lock itself opens
 * (migrate.ts runs them with `disableTransactions`): `acquire` opens the transaction and
 * takes the lock, COMMIT releases both. On PostgreSQL the COMMIT of a failed transaction
 * is a ROLLBACK, so a failed migration leaves nothing behind.
 */
export function migratingUnderLock(dialect: Dialect, acquire: readonly string[]): Dialect {
  return {
    createAdapter: () =>
      Object.assign(Object.create(dialect.createAdapter()) as DialectAdapter, {
        acquireMigrationLock: async (db: Kysely<unknown>) => {
          for (const statement of acquire) await sql.raw(statement).execute(db)
        },
        releaseMigrationLock: async (db: Kysely<unknown>) => {
          await sql.raw('commit').execute(db)
        },
      }),
    createDriver: () => dialect.createDriver(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  }
}
