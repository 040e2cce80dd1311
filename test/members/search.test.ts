import { beforeAll, describe, expect, it } from 'vitest'
import type { ApiErrorBody } from '../../src/api/errors/api-error.js'
import {
  detail,
  expectApiError,
  JSON_TYPE,
  max,
  min,
  notEmpty,
  parameterTypeMismatch,
  parameterValidation,
} from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import {
  byCodePoint,
  byMemberId,
  type MemberBody,
  memberClient,
  PAGE_KEYS,
  type PageBody,
  SORT_KEYS,
  SORT_PATTERN,
} from '../helpers/members.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * GET /members: the member search over real HTTP, on every database (spec: Page, Member
 * endpoints): matching, paging, sorting, unpaged, parameter validation.
 */

/** 25 members named Pg01..Pg25 with last names in three groups, for paging and sorting. */
const PAGED_LAST_NAMES = ['Kim', 'Lee', 'Park']

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Member search on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const { createMember, search, searchPage } = memberClient(suite)
    const named = new Map<string, MemberBody>()
    /** The seeded member with this first name. */
    const person = (firstName: string): MemberBody => {
      const member = named.get(firstName)
      if (!member) throw new Error(`no seeded member ${firstName}`)
      return member
    }
    const paged: MemberBody[] = []
    const codePoint: MemberBody[] = []

    const page = (fields: Partial<PageBody>): PageBody => ({
      content: [],
      sort: null,
      first: true,
      last: true,
      totalPages: 0,
      totalElements: 0,
      size: 20,
      number: 0,
      numberOfElements: 0,
      ...fields,
    })
    const sortOf = (property: string, direction: 'ASC' | 'DESC') => ({
      direction,
      property,
      ignoreCase: false,
      nullHandling: 'NATIVE',
      ascending: direction === 'ASC',
    })
    const byLastNameDesc = (a: MemberBody, b: MemberBody) =>
      byCodePoint(b.lastName, a.lastName) || byMemberId(a, b)

    beforeAll(async () => {
      const people: [string, string][] = [
        ['Alice', 'Smith'],
        ['alice', 'Brown'],
        ['Bob', 'Alison'],
        ['Ab%c', 'One'],
        ['Ab_c', 'Two'],
        ['Ab\\c', 'Three'],
        ['AbXc', 'Four'],
      ]
      for (const [firstName, lastName] of people) {
        named.set(firstName, await createMember({ firstName, lastName }))
      }
      for (let index = 1; index <= 25; index += 1) {
        const lastName = PAGED_LAST_NAMES[index % 3] as string
        paged.push(
          await createMember({ firstName: `Pg${String(index).padStart(2, '0')}`, lastName }),
        )
      }
      paged.sort(byMemberId)
      for (const lastName of ['Zulu', 'alpha', 'Mike', '_under']) {
        codePoint.push(await createMember({ firstName: 'Quinn', lastName }))
      }
      codePoint.sort(byMemberId)
    })

    describe('matching', () => {
      it('matches a prefix of firstName or lastName', async () => {
        const result = await searchPage('name=Ali')
        expect(result).toEqual(
          page({
            content: [person('Alice'), person('Bob')].sort(byMemberId),
            totalPages: 1,
            totalElements: 2,
            numberOfElements: 2,
          }),
        )
      })

      it('matches case-sensitively', async () => {
        const result = await searchPage('name=ali')
        expect(result.content).toEqual([person('alice')])
      })

      it('matches % literally', async () => {
        const result = await searchPage(`name=${encodeURIComponent('Ab%')}`)
        expect(result.content).toEqual([person('Ab%c')])
      })

      it('matches _ literally', async () => {
        const result = await searchPage(`name=${encodeURIComponent('Ab_')}`)
        expect(result.content).toEqual([person('Ab_c')])
      })

      it('matches \\ literally', async () => {
        const result = await searchPage(`name=${encodeURIComponent('Ab\\')}`)
        expect(result.content).toEqual([person('Ab\\c')])
      })

      it('matches all four Ab names with the plain prefix', async () => {
        const result = await searchPage('name=Ab')
        expect(result.content).toEqual(
          [person('Ab%c'), person('Ab_c'), person('Ab\\c'), person('AbXc')].sort(byMemberId),
        )
      })

      it('answers an empty first and last page when nothing matches', async () => {
        const response = await search('name=Nobody')
        expect(response.status).toBe(200)
        expect(response.headers['content-type']).toBe(JSON_TYPE)
        expect(response.body).toEqual(page({}))
      })
    })

    describe('paging', () => {
      it('defaults to page 0 of size 20, sort null, with the Page keys in order', async () => {
        const response = await search('name=Pg')
        expect(response.status).toBe(200)
        expect(response.headers['content-type']).toBe(JSON_TYPE)
        expect(Object.keys(response.body as object)).toEqual(PAGE_KEYS)
        expect(response.body).toEqual(
          page({
            content: paged.slice(0, 20),
            first: true,
            last: false,
            totalPages: 2,
            totalElements: 25,
            numberOfElements: 20,
          }),
        )
      })

      it('splits 25 matches into pages of 10, 10 and 5', async () => {
        const pages = [0, 1, 2].map((number) => searchPage(`name=Pg&size=10&page=${number}`))
        expect(await Promise.all(pages)).toEqual(
          [
            page({ content: paged.slice(0, 10), first: true, last: false, numberOfElements: 10 }),
            page({ content: paged.slice(10, 20), first: false, last: false, numberOfElements: 10 }),
            page({ content: paged.slice(20), first: false, last: true, numberOfElements: 5 }),
          ].map((expected, number) => ({
            ...expected,
            totalPages: 3,
            totalElements: 25,
            size: 10,
            number,
          })),
        )
      })

      it('answers a page past the end with empty content, first false and last true', async () => {
        expect(await searchPage('name=Pg&size=10&page=3')).toEqual(
          page({ first: false, last: true, totalPages: 3, totalElements: 25, size: 10, number: 3 }),
        )
      })

      it('accepts size 1 and size 100', async () => {
        expect(await searchPage('name=Pg&size=1&page=4')).toEqual(
          page({
            content: paged.slice(4, 5),
            first: false,
            last: false,
            totalPages: 25,
            totalElements: 25,
            size: 1,
            number: 4,
            numberOfElements: 1,
          }),
        )
        expect(await searchPage('name=Pg&size=100')).toEqual(
          page({
            content: paged,
            totalPages: 1,
            totalElements: 25,
            size: 100,
            numberOfElements: 25,
          }),
        )
      })

      it('orders by memberId ascending by default', async () => {
        const { content } = await searchPage('name=Pg&size=100')
        const ids = content.map((member) => member.memberId)
        expect(ids).toEqual([...ids].sort(byCodePoint))
        expect(ids).toHaveLength(25)
      })

      it('pages through every match exactly once with size 7 under a sort with ties', async () => {
        const seen: MemberBody[] = []
        for (let number = 0; number < 4; number += 1) {
          const result = await searchPage(`name=Pg&size=7&page=${number}&sort=lastName,desc`)
          expect(result.numberOfElements).toBe(number < 3 ? 7 : 4)
          expect(result.last).toBe(number === 3)
          seen.push(...result.content)
        }
        expect(seen).toEqual([...paged].sort(byLastNameDesc))
        expect(new Set(seen.map((member) => member.memberId)).size).toBe(25)
      })
    })

    describe('sorting', () => {
      it('sorts by lastName,desc with a memberId tie-break and reports the Sort', async () => {
        const result = await searchPage('name=Pg&size=100&sort=lastName,desc')
        expect(result.sort).toEqual([sortOf('lastName', 'DESC')])
        expect(Object.keys(result.sort?.[0] as object)).toEqual(SORT_KEYS)
        expect(result.content).toEqual([...paged].sort(byLastNameDesc))
      })

      it('applies two sort parameters in order and reports two Sort objects', async () => {
        const result = await searchPage('name=Pg&size=100&sort=lastName,desc&sort=firstName')
        expect(result.sort).toEqual([sortOf('lastName', 'DESC'), sortOf('firstName', 'ASC')])
        expect(result.content).toEqual(
          [...paged].sort(
            (a, b) => byCodePoint(b.lastName, a.lastName) || byCodePoint(a.firstName, b.firstName),
          ),
        )
      })

      it('accepts the direction in any letter case', async () => {
        const result = await searchPage('name=Pg&size=100&sort=firstName,DeSc')
        expect(result.sort).toEqual([sortOf('firstName', 'DESC')])
        expect(result.content).toEqual(
          [...paged].sort((a, b) => byCodePoint(b.firstName, a.firstName)),
        )
      })

      it('sorts ascending when no direction is given', async () => {
        const result = await searchPage('name=Pg&size=100&sort=firstName')
        expect(result.sort).toEqual([sortOf('firstName', 'ASC')])
        expect(result.content).toEqual(
          [...paged].sort((a, b) => byCodePoint(a.firstName, b.firstName)),
        )
      })

      it('sorts by code point: upper case before lower case', async () => {
        const result = await searchPage('name=Quinn&sort=lastName')
        expect(result.content.map((member) => member.lastName)).toEqual([
          'Mike',
          'Zulu',
          '_under',
          'alpha',
        ])
        expect(result.content).toEqual(
          [...codePoint].sort((a, b) => byCodePoint(a.lastName, b.lastName)),
        )
      })
    })

    describe('unpaged', () => {
      it('answers a plain array of every match in the paging order', async () => {
        const response = await search('name=Pg&unpaged=true&sort=lastName,desc')
        expect(response.status).toBe(200)
        expect(response.headers['content-type']).toBe(JSON_TYPE)
        expect(response.body).toEqual([...paged].sort(byLastNameDesc))
        const byDefault = await search('name=Pg&unpaged=true')
        expect(byDefault.body).toEqual(paged)
      })
    })

    describe('parameter validation', () => {
      it('rejects a missing name with NotEmpty', async () => {
        expectApiError(await search(''), 400, parameterValidation(notEmpty('name')))
      })

      it('rejects an empty name with NotEmpty', async () => {
        expectApiError(await search('name='), 400, parameterValidation(notEmpty('name')))
      })

      it('rejects page=-1 with Min 0', async () => {
        expectApiError(await search('name=Pg&page=-1'), 400, parameterValidation(min('page', 0)))
      })

      it('rejects size=0 with Min 1', async () => {
        expectApiError(await search('name=Pg&size=0'), 400, parameterValidation(min('size', 1)))
      })

      it('rejects size=101 with Max 100', async () => {
        expectApiError(await search('name=Pg&size=101'), 400, parameterValidation(max('size', 100)))
      })

      it('orders the details name, page, size', async () => {
        expectApiError(
          await search('size=101&page=-1&name='),
          400,
          parameterValidation(notEmpty('name'), min('page', 0), max('size', 100)),
        )
      })

      it('rejects unconvertible page, size and unpaged values with 7006', async () => {
        for (const [query, parameter] of [
          ['page=abc', 'page'],
          ['page=1.5', 'page'],
          ['size=x', 'size'],
          ['unpaged=maybe', 'unpaged'],
        ] as const) {
          expectApiError(await search(`name=Pg&${query}`), 400, parameterTypeMismatch(parameter))
        }
      })

      it('rejects an unsortable property or an unknown direction with a Pattern detail', async () => {
        for (const [query, target] of [
          ['sort=password', 'sort[0]'],
          ['sort=lastName,sideways', 'sort[0]'],
          ['sort=lastName&sort=password', 'sort[1]'],
        ] as const) {
          const response = await search(`name=Pg&${query}`)
          expect(response.status).toBe(400)
          expect(response.body).toMatchObject({
            code: 'e.ex.fw.7002',
            message: 'Validation error occurred on item in the request parameters.',
            details: [{ code: 'Pattern', target }],
          })
          expect((response.body as ApiErrorBody).details).toHaveLength(1)
        }
      })

      it('words the Pattern message by the spec template "{0} must match {regexp}."', async () => {
        expectApiError(
          await search('name=Pg&sort=password'),
          400,
          parameterValidation(detail('Pattern', 'sort[0]', `sort[0] must match ${SORT_PATTERN}.`)),
        )
      })
    })
  })
}
