import { type Kysely, sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { createDatabase, type Database } from '../../src/infra/db/create-database.js'
import type { Migrations } from '../../src/infra/db/migrate.js'
import { MIGRATIONS } from '../../src/resources/index.js'
import type { Member } from '../../src/resources/member/domain/model.js'
import { DATABASES, type IsolatedDatabase, migrateInChildProcess } from '../helpers/databases.js'
import { storableMember } from '../helpers/members.js'
import { EXPAND_EXAMPLE, EXPAND_INDEX_EXAMPLE } from '../helpers/migration-rule.js'
import { repositoriesOf } from '../helpers/repositories.js'

/**
 * During a rolling upgrade, instances of the release before keep running, with their
 * connections and prepared statements, on the schema the new release migrated
 * (src/infra/db/migrate.ts: expand, then contract). Here "the release before" is this
 * release's own repositories, every kind of statement they send: they work while and
 * after this release's newest migration is applied under them, and after a next
 * release's migration that only expands; a migration that renames a column breaks them,
 * which is why a contract step waits a release. test/rules/migration-rule.test.ts checks
 * each migration's statements against the rule.
 */

const NEWEST = Object.keys(MIGRATIONS).at(-1) as string
const BEFORE_NEWEST: Migrations = Object.fromEntries(
  Object.entries(MIGRATIONS).filter(([name]) => name !== NEWEST),
)

const NEXT_EXPANDS: Migrations = {
  ...MIGRATIONS,
  '9001-expand-example': EXPAND_EXAMPLE,
  '9002-expand-example-index': EXPAND_INDEX_EXAMPLE,
}

/** What the rule forbids before a contract step: a rename of a column the release reads. */
const NEXT_RENAMES: Migrations = {
  ...MIGRATIONS,
  '9001-rename-example': () => ({
    async up(db: Kysely<unknown>) {
      await sql`alter table member rename column first_name to given_name`.execute(db)
    },
  }),
}

/**
 * Every kind of statement the repositories send, once: member insert, lookup, update,
 * search (count and page), search of all, delete; Todo insert, lookup, list, finish,
 * delete; Idempotency-Key claim, lookup, outcome. Returns the member it leaves behind.
 */
async function useEveryStatement(database: Database, n: number) {
  const { members, todos, idempotency } = repositoriesOf(database)
  const member = storableMember(n)
  expect(await members.insert(member)).toBe('inserted')
  expect(await members.findById(member.memberId)).toEqual(member)
  const changed = { ...member, firstName: `Changed${n}`, version: 2 }
  expect(await members.update(changed, 1)).toBe(true)
  const search = {
    namePrefix: `Changed${n}`,
    sort: [{ property: 'lastName' as const, direction: 'DESC' as const }],
  }
  expect(await members.search(search, { page: 0, size: 5 })).toEqual({
    members: [changed],
    total: 1,
  })
  expect(await members.searchAll(search, 5)).toEqual([changed])
  const gone = storableMember(n + 10_000)
  await members.insert(gone)
  expect(await members.delete(gone.memberId, 1)).toBe(true)

  const todo = {
    todoId: `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`,
    todoTitle: `todo ${n}`,
    finished: false,
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, n)).toISOString(),
  }
  await todos.insert(todo)
  expect(await todos.findById(todo.todoId)).toEqual(todo)
  expect(await todos.listAfter(undefined, 1000)).toContainEqual(todo)
  expect(await todos.markFinished(todo.todoId)).toEqual({ ...todo, finished: true })
  expect(await todos.delete(todo.todoId, true)).toBe(true)

  const key = `upgrade-${n}`
  const claimedAt = new Date(Date.UTC(2026, 0, 1))
  expect(await idempotency.claim(key, 'hash', claimedAt)).toBe(true)
  const outcome = { status: 201, body: '{}', location: null, etag: '"1"' }
  expect(await idempotency.complete(key, claimedAt, outcome)).toBe(true)
  expect((await idempotency.find(key))?.outcome).toEqual(outcome)
  return changed
}

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`a rolling upgrade on ${target.name}`, () => {
    let isolated: IsolatedDatabase | undefined
    const opened: Database[] = []
    const open = async (migrations: Migrations) => {
      const database = await createDatabase((isolated as IsolatedDatabase).config, { migrations })
      opened.push(database)
      return database
    }
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((database) => database.close()))
      await isolated?.drop()
      isolated = undefined
    })

    it(`the release before keeps working while and after ${NEWEST} is applied under it`, async () => {
      isolated = await target.create()
      const before = await open(BEFORE_NEWEST)
      const first = await useEveryStatement(before, 1)
      // The new release starts in a process of its own; the old one writes until it is up.
      let started = false
      const child = migrateInChildProcess((isolated as IsolatedDatabase).config).finally(() => {
        started = true
      })
      const during: Member[] = []
      for (let n = 2; n < 1000 && !started; n += 1) during.push(await useEveryStatement(before, n))
      expect(await child).toBe(0)
      expect(during.length).toBeGreaterThan(0)
      const upgraded = await open(MIGRATIONS)
      const after = await useEveryStatement(before, 5000)
      const own = await useEveryStatement(upgraded, 5001)
      const { members } = repositoriesOf(upgraded)
      for (const member of [first, ...during, after]) {
        expect(await members.findById(member.memberId)).toEqual(member)
      }
      expect(await repositoriesOf(before).members.findById(own.memberId)).toEqual(own)
    })

    it('this release keeps working on the schema of a next release that only expands', async () => {
      isolated = await target.create()
      const current = await open(MIGRATIONS)
      // Its statements prepared (by name on PostgreSQL) before the schema changes.
      const first = await useEveryStatement(current, 1)
      await open(NEXT_EXPANDS)
      const second = await useEveryStatement(current, 2)
      const { members } = repositoriesOf(current)
      expect(await members.findById(first.memberId)).toEqual(first)
      expect(await members.findById(second.memberId)).toEqual(second)
    })

    it('a next release that renames a column it reads breaks it: that waits a release', async () => {
      isolated = await target.create()
      const current = await open(MIGRATIONS)
      const first = await useEveryStatement(current, 1)
      await open(NEXT_RENAMES)
      await expect(repositoriesOf(current).members.findById(first.memberId)).rejects.toThrow()
      await expect(useEveryStatement(current, 2)).rejects.toThrow()
    })
  })
}
