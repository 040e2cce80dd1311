import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database, ExecutedQuery } from '../../src/infra/db/create-database.js'
import {
  type Member,
  type MemberSearch,
  SORTABLE_PROPERTIES,
  type SortOrder,
} from '../../src/resources/member/domain/model.js'
import { KyselyMemberRepository } from '../../src/resources/member/infra/member-repository.js'
import { MemberSearchQueries } from '../../src/resources/member/infra/member-search.js'
import { DATABASES, type IsolatedDatabase, openDatabase } from '../helpers/databases.js'
import { explainQuery } from '../helpers/query-plans.js'

/*
 * The member search's plans (member-search.ts) against the obvious definition: filter by
 * prefix, sort by the keys then memberId, slice. Values are drawn from small sets, so
 * that names share prefixes and every sort key has ties and groups of every size; each
 * plan is forced (always walked, always gathered) and must give the reference's page.
 */

const MEMBERS = 400
const FIRST_NAMES = ['Al', 'Alba', 'Albert', 'Alma', 'Bo', 'Bob', 'Zed', 'al', 'A%x', 'A_x']
const LAST_NAMES = ['Alder', 'Ames', 'Bolt', 'Zed', 'Alba', 'ames', 'Q']
const BIRTHDAYS = ['1970-01-01', '1980-06-15', '1980-06-16', '1999-12-31', '2000-02-29']
const STAMPS = ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.001Z', '2026-03-01T12:00:00.000Z']
const PREFIXES = ['A', 'Al', 'Alb', 'Albert', 'B', 'Bo', 'Z', 'a', 'A%', 'A_', 'Q', 'Nobody']

const pick = <T>(values: readonly T[], n: number): T => values[n % values.length] as T

function generatedMember(n: number): Member {
  const created = pick(STAMPS, n * 7)
  return {
    memberId: `S${String((n * 7919) % 1_000_003).padStart(9, '0')}`,
    firstName: pick(FIRST_NAMES, n * 3),
    lastName: pick(LAST_NAMES, n * 5 + 1),
    genderCode: String(n % 3),
    dateOfBirth: pick(BIRTHDAYS, n * 11),
    emailAddress: `m${n % 13}@example.com`,
    telephoneNumber: null,
    zipCode: null,
    address: null,
    credential: {
      signId: `m${n}@example.com`,
      passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
      passwordLastChangedAt: created,
      lastModifiedAt: created,
    },
    createdAt: created,
    lastModifiedAt: pick(STAMPS, n * 13 + 2),
    version: 1,
  }
}

/**
 * The reference: every field compared as the databases do (code point order, ASCII here;
 * time stamps are ISO texts of one form, which order as their instants do).
 */
function sortValue(member: Member, property: SortOrder['property']): string {
  return member[property]
}

function expectedIds(members: readonly Member[], search: MemberSearch): string[] {
  const matches = members.filter(
    (member) =>
      member.firstName.startsWith(search.namePrefix) ||
      member.lastName.startsWith(search.namePrefix),
  )
  const orders: SortOrder[] = [...search.sort, { property: 'memberId', direction: 'ASC' }]
  return matches
    .sort((a, b) => {
      for (const { property, direction } of orders) {
        const [x, y] = [sortValue(a, property), sortValue(b, property)]
        if (x !== y) return (x < y ? -1 : 1) * (direction === 'ASC' ? 1 : -1)
      }
      return 0
    })
    .map((member) => member.memberId)
}

const searches: fc.Arbitrary<MemberSearch> = fc.record({
  namePrefix: fc.constantFrom(...PREFIXES),
  sort: fc.uniqueArray(
    fc.record({
      property: fc.constantFrom(...SORTABLE_PROPERTIES),
      direction: fc.constantFrom('ASC' as const, 'DESC' as const),
    }),
    { maxLength: 3, selector: (order) => order.property },
  ),
})

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`The member search plans on ${target.name}`, () => {
    let isolated: IsolatedDatabase
    let database: Database
    const members = Array.from({ length: MEMBERS }, (_, n) => generatedMember(n + 1))
    const queries: ExecutedQuery[] = []

    /** A repository whose searches all take one plan: walked (limit 0) or gathered. */
    const planned = (gatherLimit: number) =>
      new KyselyMemberRepository(database, {
        searches: new MemberSearchQueries(database.engine, gatherLimit),
      })

    beforeAll(async () => {
      isolated = await target.create()
      database = await openDatabase(isolated.config, { onQuery: (query) => queries.push(query) })
      const repository = planned(0)
      for (const member of members) await repository.insert(member)
    })
    afterAll(async () => {
      await database?.close()
      await isolated?.drop()
    })

    for (const [plan, gatherLimit] of [
      ['walked', 0],
      ['gathered', Number.MAX_SAFE_INTEGER],
    ] as const) {
      it(`answers the reference's page and total, ${plan}, for any prefix, sort and page`, async () => {
        const repository = planned(gatherLimit)
        await fc.assert(
          fc.asyncProperty(
            searches,
            fc.integer({ min: 1, max: 40 }),
            fc.integer({ min: 0, max: 60 }),
            async (search, size, page) => {
              const expected = expectedIds(members, search)
              const answer = await repository.search(search, { page, size })
              expect(answer.total).toBe(expected.length)
              expect(answer.members.map((member) => member.memberId)).toEqual(
                expected.slice(page * size, page * size + size),
              )
            },
          ),
          { numRuns: 120 },
        )
      })
    }

    it('answers an unpaged search in the reference order, or nothing past its limit', async () => {
      const repository = planned(0)
      await fc.assert(
        fc.asyncProperty(searches, fc.integer({ min: 0, max: 300 }), async (search, limit) => {
          const expected = expectedIds(members, search)
          const answer = await repository.searchAll(search, limit)
          if (expected.length > limit) expect(answer).toBeUndefined()
          else expect(answer?.map((member) => member.memberId)).toEqual(expected)
        }),
        { numRuns: 60 },
      )
    })

    it('returns whole members, exactly as stored', async () => {
      const [first] = (
        await planned(0).search({ namePrefix: 'Albert', sort: [] }, { page: 0, size: 1 })
      ).members
      expect(first).toEqual(members.find((member) => member.memberId === first?.memberId))
    })

    it('walks the index of the first sort key in order, with no sort for one key', async () => {
      queries.length = 0
      const sort: SortOrder[] = [{ property: 'dateOfBirth', direction: 'ASC' }]
      await planned(0).search({ namePrefix: 'A', sort }, { page: 1, size: 5 })
      const walk = queries.find((query) => /order by/i.test(query.sql))
      const plan = await explainQuery(isolated, walk as ExecutedQuery, { walk: true })
      expect(plan).toMatch(/member_by_date_of_birth_idx/)
      expect(plan).not.toMatch(/TEMP B-TREE|Sort/)
    })
  })
}
