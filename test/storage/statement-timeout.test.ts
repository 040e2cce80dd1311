import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type Database } from '../../src/infra/db/create-database.js'
import { type IsolatedDatabase, POSTGRES_TARGET } from '../helpers/databases.js'

const TIMEOUT_MS = 300

/**
 * DB_TIMEOUT reaches PostgreSQL itself as statement_timeout: the server cancels a
 * statement past it (SQLSTATE 57014), whether the service connects directly (a startup
 * parameter) or through a transaction pooler (SET LOCAL in each transaction). The
 * client's own give-up comes later and carries no SQLSTATE.
 */
describe.skipIf(!POSTGRES_TARGET.available)('the statement timeout on postgres', () => {
  let isolated: IsolatedDatabase
  let database: Database

  beforeAll(async () => {
    isolated = await POSTGRES_TARGET.create()
    database = await createDatabase(isolated.config, { timeoutMs: TIMEOUT_MS })
  })
  afterAll(async () => {
    await database?.close()
    await isolated?.drop()
  })

  const cancelled = async (work: () => Promise<unknown>) => {
    const started = Date.now()
    const error = await work().then(
      () => undefined,
      (failure: unknown) => failure,
    )
    return { code: (error as { cause?: { code?: string } })?.cause?.code, ms: Date.now() - started }
  }

  it('cancels a lone statement past DB_TIMEOUT on the server', async () => {
    const { code, ms } = await cancelled(() => sql`select pg_sleep(2)`.execute(database.db))
    expect(code).toBe('57014')
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20)
    expect(ms).toBeLessThan(TIMEOUT_MS + 250)
  })

  it('cancels a statement in a transaction the same way, and the connection serves on', async () => {
    const { code } = await cancelled(() =>
      database.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx)
        await sql`select pg_sleep(2)`.execute(trx)
      }),
    )
    expect(code).toBe('57014')
    const { rows } = await sql<{ answer: number }>`select 42 as answer`.execute(database.db)
    expect(rows).toEqual([{ answer: 42 }])
  })

  it('keeps the schema of the URL (search_path) for every statement', async () => {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(
      database.db,
    )
    expect(rows[0]?.schema).toMatch(/^test_/)
  })
})
