import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ServiceBusyError } from '../../src/domain/common/errors.js'
import type { Database } from '../../src/infra/db/create-database.js'
import { DATABASES, type IsolatedDatabase, openDatabase } from '../helpers/databases.js'

/*
 * The long reads' own connections (Database.reads, decisions §9): a statement past
 * READ_TIMEOUT is cancelled on both databases and leaves as ServiceBusyError; the
 * connections recover for the next read; on SQLite the reads run off the event loop;
 * a transaction on them reads one snapshot while the main connection writes.
 */

const READ_TIMEOUT_MS = 200

/** A statement that computes for a second or more on either database. */
const longStatement = sql<{ n: number }>`
  with recursive c(x) as (select 1 union all select x + 1 from c where x < 20000000)
  select count(*) as n from c`

/** The longest gap between ticks of a 5 ms timer while `work` runs: how long the event loop stalled. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now()
  let longest = 0
  const timer = setInterval(() => {
    const now = performance.now()
    longest = Math.max(longest, now - last)
    last = now
  }, 5)
  try {
    await work().catch(() => undefined)
  } finally {
    clearInterval(timer)
  }
  return longest
}

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`The long reads on ${target.name}`, () => {
    let isolated: IsolatedDatabase
    let database: Database
    let cancelled = 0

    beforeAll(async () => {
      isolated = await target.create()
      database = await openDatabase(isolated.config, {
        reads: { connections: 2, timeoutMs: READ_TIMEOUT_MS },
        onReadCancelled: () => {
          cancelled += 1
        },
      })
    })
    afterAll(async () => {
      await database?.close()
      await isolated?.drop()
    })

    it('cancels a statement past the read timeout: busy, counted, and the next read runs', async () => {
      // Both connections opened first: on SQLite a reader thread starts on first need, and
      // a start (slower on Node 24) must not count against the reads' 200 ms wait below.
      await Promise.all([1, 2].map(() => sql`select 1`.execute(database.reads)))
      const before = cancelled
      const started = performance.now()
      const failure = await longStatement.execute(database.reads).catch((error: unknown) => error)
      const elapsed = performance.now() - started
      expect(failure).toBeInstanceOf(ServiceBusyError)
      expect(failure).toMatchObject({ retryAfterSeconds: 1 })
      expect(elapsed).toBeGreaterThanOrEqual(READ_TIMEOUT_MS - 5)
      expect(elapsed).toBeLessThan(READ_TIMEOUT_MS + 1000)
      expect(cancelled).toBe(before + 1)
      // The other reads are served meanwhile, with nothing of the cancelled one left behind.
      const counts = await Promise.all(
        [1, 2, 3, 4].map(() =>
          database.reads
            .selectFrom('member')
            .select((eb) => eb.fn.countAll().as('n'))
            .execute(),
        ),
      )
      expect(counts.map(([row]) => Number(row?.n))).toEqual([0, 0, 0, 0])
    })

    it('reads one snapshot in a transaction while the main connection writes', async () => {
      const counted = (db: typeof database.reads) =>
        db
          .selectFrom('todo')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
          .then((row) => Number(row.n))
      const [first, second] = await database.reads
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute(async (trx) => {
          const before = await counted(trx)
          await database.db
            .insertInto('todo')
            .values({
              todo_id: 'snapshot-1',
              todo_title: 'Written meanwhile',
              created_at: '2026-01-01T00:00:00.000Z',
            })
            .execute()
          return [before, await counted(trx)]
        })
      expect(second).toBe(first)
      expect(await counted(database.reads)).toBe(first + 1)
    })

    it.runIf(target.name === 'sqlite')(
      'runs off the event loop: a long read does not stall other work',
      async () => {
        // The statement computes until it is cancelled; timers keep firing meanwhile.
        const stall = await longestStall(() => longStatement.execute(database.reads))
        expect(stall).toBeLessThan(100)
      },
    )
  })
}
