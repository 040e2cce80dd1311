import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database, ExecutedQuery } from '../../src/infra/db/create-database.js'
import type { Member, MemberSearch } from '../../src/resources/member/domain/model.js'
import { KyselyMemberRepository } from '../../src/resources/member/infra/member-repository.js'
import { MemberSearchQueries } from '../../src/resources/member/infra/member-search.js'
import { DATABASES, type IsolatedDatabase, openDatabase } from '../helpers/databases.js'
import { storableMember } from '../helpers/members.js'
import { explainQuery } from '../helpers/query-plans.js'

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`KyselyMemberRepository on ${target.name}`, () => {
    let isolated: IsolatedDatabase
    let database: Database
    let repository: KyselyMemberRepository
    const queries: ExecutedQuery[] = []
    let sequence = 0

    beforeAll(async () => {
      isolated = await target.create()
      database = await openDatabase(isolated.config, { onQuery: (query) => queries.push(query) })
      repository = new KyselyMemberRepository(database, {
        searches: new MemberSearchQueries(database.engine),
      })
    })
    afterAll(async () => {
      await database?.close()
      await isolated?.drop()
    })

    function newMember(overrides: Partial<Member> = {}): Member {
      sequence += 1
      return storableMember(sequence, overrides)
    }

    const byName = (namePrefix: string, sort: MemberSearch['sort'] = []): MemberSearch => ({
      namePrefix,
      sort,
    })

    it('stores a member with its credential and reads it back exactly (null and "" kept apart)', async () => {
      const member = newMember({ telephoneNumber: null, zipCode: '', address: '東京都 😀' })
      expect(await repository.insert(member)).toBe('inserted')
      expect(await repository.findById(member.memberId)).toEqual(member)
    })

    it('reports a taken sign id and a taken member id, and stores neither half', async () => {
      const first = newMember()
      await repository.insert(first)
      const sameSignId = newMember({ credential: { ...first.credential } })
      expect(await repository.insert(sameSignId)).toBe('sign-id-taken')
      expect(await repository.findById(sameSignId.memberId)).toBeUndefined()
      const sameId = newMember({ memberId: first.memberId })
      expect(await repository.insert(sameId)).toBe('member-id-taken')
      expect(await repository.findById(first.memberId)).toEqual(first)
    })

    it('updates only at the expected version', async () => {
      const member = newMember()
      await repository.insert(member)
      const changed = {
        ...member,
        firstName: 'Changed',
        version: 2,
        lastModifiedAt: new Date().toISOString(),
      }
      expect(await repository.update(changed, 5)).toBe(false)
      expect(await repository.update(changed, 1)).toBe(true)
      expect(await repository.findById(member.memberId)).toEqual(changed)
      expect(await repository.update(changed, 1)).toBe(false)
    })

    it('deletes the member with its credential, at the expected version if given', async () => {
      const member = newMember()
      await repository.insert(member)
      expect(await repository.delete(member.memberId, 2)).toBe(false)
      expect(await repository.delete(member.memberId, 1)).toBe(true)
      expect(await repository.findById(member.memberId)).toBeUndefined()
      // The sign id is free again: the credential row went with the member.
      expect(await repository.insert(newMember({ credential: member.credential }))).toBe('inserted')
    })

    it('matches first or last name by prefix, case-sensitively, wildcards literally', async () => {
      const names = ['Pre%x', 'Pre_x', 'Pre\\x', 'PreAx', 'preLower']
      for (const firstName of names) await repository.insert(newMember({ firstName }))
      await repository.insert(newMember({ firstName: 'Other', lastName: 'Pre%Last' }))
      const found = async (prefix: string) =>
        (await repository.search(byName(prefix), { page: 0, size: 100 })).members
          .map((member) => member.firstName)
          .sort()
      expect(await found('Pre%')).toEqual(['Other', 'Pre%x'])
      expect(await found('Pre_')).toEqual(['Pre_x'])
      expect(await found('Pre\\')).toEqual(['Pre\\x'])
      expect(await found('Pre')).toEqual(['Other', 'Pre%x', 'PreAx', 'Pre\\x', 'Pre_x'])
      expect(await found('pre')).toEqual(['preLower'])
    })

    it('pages in the requested order with memberId breaking ties, and counts every match', async () => {
      const members = ['Zed', 'Amy', 'Zed', 'Bob', 'Zed'].map((firstName) =>
        newMember({ firstName: `Tie${firstName}` }),
      )
      for (const member of members) await repository.insert(member)
      const sort = [{ property: 'firstName', direction: 'DESC' } as const]
      const pages = await Promise.all(
        [0, 1, 2].map((page) => repository.search(byName('Tie', sort), { page, size: 2 })),
      )
      expect(pages.map((page) => page.total)).toEqual([5, 5, 5])
      const ids = pages.flatMap((page) => page.members.map((member) => member.memberId))
      const zeds = members.filter((member) => member.firstName === 'TieZed').map((m) => m.memberId)
      expect(ids).toEqual([...zeds.sort(), members[3]?.memberId, members[1]?.memberId])
      const past = await repository.search(byName('Tie'), { page: 1_000_000_000, size: 100 })
      expect(past).toEqual({ members: [], total: 5 })
    })

    it('answers every match of an unpaged search, or none when there are more than the limit', async () => {
      for (let i = 0; i < 4; i += 1) await repository.insert(newMember({ lastName: 'Limit' }))
      expect(await repository.searchAll(byName('Limit'), 3)).toBeUndefined()
      expect((await repository.searchAll(byName('Limit'), 4))?.length).toBe(4)
    })

    it('counts and gathers through both name indexes, without reading the table (query plan)', async () => {
      queries.length = 0
      await repository.search(byName('Pre'), { page: 0, size: 20 })
      const plans = await Promise.all(
        queries.filter(isSelect).map((query) => explainQuery(isolated, query)),
      )
      const [count, gathered] = plans
      for (const plan of [count, gathered]) {
        expect(plan).toMatch(/member_by_first_name_idx/)
        expect(plan).toMatch(/member_by_last_name_idx/)
        expect(plan).not.toMatch(SEQUENTIAL_SCAN[target.name])
      }
      // Counting reads the two name indexes only.
      if (target.name === 'sqlite') expect(count).toMatch(/COVERING INDEX member_by_last_name_idx/)
      else expect(count).toMatch(/Index Only Scan using member_by_last_name_idx/)
    })
  })
}

const SEQUENTIAL_SCAN = { sqlite: /SCAN m\b(?! USING)/, postgres: /Seq Scan on member/ }

const isSelect = (query: ExecutedQuery) => /^\s*select/i.test(query.sql)
