import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DataAccessError } from '../../src/domain/common/errors.js'
import type { Database } from '../../src/infra/db/create-database.js'
import { type IsolatedDatabase, openDatabase, POSTGRES_TARGET } from '../helpers/databases.js'
import { type TcpProxy, viaProxy } from '../helpers/tcp-proxy.js'

const TIMEOUT_MS = 300

/** What `work` failed with, and how long it took. */
async function failure(work: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now()
  const error = await work().then(
    () => undefined,
    (failed: unknown) => failed,
  )
  return { error, ms: Date.now() - started }
}

/**
 * DB_TIMEOUT reaches PostgreSQL itself as statement_timeout: the server cancels a
 * statement past it (SQLSTATE 57014), whether the service connects directly (a startup
 * parameter) or through a transaction pooler (SET LOCAL in each transaction). The
 * client's own give-up comes later and carries no SQLSTATE: it is for an answer that never
 * comes (a network gone silent), where only the client can notice.
 */
describe.skipIf(!POSTGRES_TARGET.available)('the statement timeout on postgres', () => {
  let isolated: IsolatedDatabase
  let database: Database

  beforeAll(async () => {
    isolated = await POSTGRES_TARGET.create()
    database = await openDatabase(isolated.config, { timeoutMs: TIMEOUT_MS })
  })
  afterAll(async () => {
    await database?.close()
    await isolated?.drop()
  })

  const cancelled = async (work: () => Promise<unknown>) => {
    const { error, ms } = await failure(work)
    return { code: (error as { cause?: { code?: string } })?.cause?.code, ms }
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

/**
 * The client's deadline (postgres/answer-deadline.ts): 250 ms after the statement timeout,
 * checked every 100 ms. The proxy keeps the connection open and forwards nothing.
 */
describe.skipIf(!POSTGRES_TARGET.available)(
  "the client's deadline for an answer on postgres",
  () => {
    const DEADLINE_MS = TIMEOUT_MS + 250
    let isolated: IsolatedDatabase
    let proxy: TcpProxy
    let database: Database
    let lookup: (id: string) => unknown

    beforeAll(async () => {
      isolated = await POSTGRES_TARGET.create()
      const proxied = await viaProxy(isolated.config)
      proxy = proxied.proxy
      database = await openDatabase(proxied.config, { timeoutMs: TIMEOUT_MS })
      lookup = database.precompile(
        database.db.selectFrom('todo').select('todo_id').where('todo_id', '=', ''),
        { atMostOne: true },
      )
    })
    afterAll(async () => {
      await database?.close()
      await proxy?.close()
      await isolated?.drop()
    })

    const statements = {
      'a statement run by Kysely': () => sql`select 1`.execute(database.db),
      "a precompiled read (pg's pool.query)": async () => lookup('none'),
    }

    for (const [name, statement] of Object.entries(statements)) {
      it(`fails ${name} that gets no answer, and the pool serves on`, async () => {
        await statement()
        proxy.stall()
        try {
          const { error, ms } = await failure(statement)
          expect(error).toBeInstanceOf(DataAccessError)
          expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 20)
          // One sweep's period past the deadline, and slack for a busy machine.
          expect(ms).toBeLessThan(DEADLINE_MS + 100 + 100)
        } finally {
          await proxy.restore()
        }
        const { rows } = await sql<{ answer: number }>`select 42 as answer`.execute(database.db)
        expect(rows).toEqual([{ answer: 42 }])
        await expect(statement()).resolves.toBeDefined()
      })
    }
  },
)
