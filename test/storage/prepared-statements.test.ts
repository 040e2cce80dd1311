import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DatabaseConfig } from '../../src/config/settings.js'
import { type IsolatedDatabase, openDatabase, POSTGRES_TARGET } from '../helpers/databases.js'
import { storableMember } from '../helpers/members.js'
import { repositoriesOf } from '../helpers/repositories.js'

/**
 * DB_PREPARED_STATEMENTS on PostgreSQL: the hot statements (lookups by id, a member's
 * insert) are prepared once per connection under a name and then run by it; other SQL
 * stays unnamed. `auto` names them unless the service is told it sits behind a
 * transaction pooler.
 */
describe.skipIf(!POSTGRES_TARGET.available)('prepared statements on postgres', () => {
  let isolated: IsolatedDatabase
  /** Members created so far: each a new id and sign id. */
  let created = 0
  beforeAll(async () => {
    isolated = await POSTGRES_TARGET.create()
  })
  afterAll(async () => {
    await isolated?.drop()
  })

  /**
   * The statements prepared on the connection of one transaction that looks up by id
   * twice and creates two members.
   */
  async function preparedAfterHotStatements(namedStatements: boolean | undefined) {
    const config = isolated.config as Extract<DatabaseConfig, { kind: 'postgres' }>
    const database = await openDatabase(
      namedStatements === undefined ? config : { ...config, namedStatements },
    )
    try {
      const { todos, members } = repositoriesOf(database)
      return await database.db.transaction().execute(async (trx) => {
        for (let time = 0; time < 2; time += 1) {
          expect(await todos.inTransaction(trx).findById('no-such-todo')).toBeUndefined()
          expect(await members.inTransaction(trx).findById('NoSuchId00')).toBeUndefined()
          created += 1
          const member = storableMember(created)
          expect(await members.inTransaction(trx).insert(member)).toBe('inserted')
          expect(await members.inTransaction(trx).findById(member.memberId)).toEqual(member)
        }
        const { rows } = await sql<{ name: string; statement: string }>`
          select name, statement from pg_prepared_statements order by name`.execute(trx)
        return rows
      })
    } finally {
      await database.close()
    }
  }

  const behindTransactionPooler = () =>
    (isolated.config as { pooler?: string }).pooler === 'transaction'

  const hot = (rows: { name: string; statement: string }[]) =>
    rows.filter(({ name }) => name.startsWith('hot_'))
  const hotStatements = [
    { name: expect.stringMatching(/^hot_\d+$/), statement: expect.stringMatching(/from "todo"/) },
    { name: expect.stringMatching(/^hot_\d+$/), statement: expect.stringMatching(/from "member"/) },
    {
      name: expect.stringMatching(/^hot_\d+$/),
      statement: expect.stringMatching(/^with "m" as \(insert into "member"/),
    },
  ]

  it('auto: names them directly, and sends them unnamed behind a transaction pooler', async () => {
    const prepared = hot(await preparedAfterHotStatements(undefined))
    if (behindTransactionPooler()) expect(prepared).toEqual([])
    else expect(prepared).toEqual(expect.arrayContaining(hotStatements))
    if (!behindTransactionPooler()) expect(prepared).toHaveLength(hotStatements.length)
  })

  it('on: names them (a transaction pooler must track them: PgBouncer 1.21+)', async (context) => {
    if (behindTransactionPooler()) context.skip('PgBouncer 1.18 cannot track named statements')
    const prepared = hot(await preparedAfterHotStatements(true))
    expect(prepared).toHaveLength(hotStatements.length)
    expect(prepared).toEqual(expect.arrayContaining(hotStatements))
  })

  it('off: names nothing', async () => {
    expect(hot(await preparedAfterHotStatements(false))).toEqual([])
  })
})
