import { describe, expect, it } from 'vitest'
import { DATABASES } from '../helpers/databases.js'
import { memberClient } from '../helpers/members.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * GET /members with PAGE_FORMAT=legacy: the older Page shape (firstPage/lastPage, no
 * nullHandling), on every database.
 */

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Member search, legacy page format on ${target.name}`, () => {
    const suite = serverPerSuite(target, { PAGE_FORMAT: 'legacy' })
    const { createMember, search } = memberClient(suite)

    it('names firstPage/lastPage and omits nullHandling from Sort', async () => {
      const older = await createMember({ firstName: 'LegA' })
      const newer = await createMember({ firstName: 'LegB' })
      const response = await search('name=Leg&size=1&sort=firstName,desc')
      expect(response.status).toBe(200)
      expect(Object.keys(response.body as object)).toEqual([
        'content',
        'sort',
        'firstPage',
        'lastPage',
        'totalPages',
        'totalElements',
        'size',
        'number',
        'numberOfElements',
      ])
      expect(response.body).toEqual({
        content: [newer],
        sort: [{ direction: 'DESC', property: 'firstName', ignoreCase: false, ascending: false }],
        firstPage: true,
        lastPage: false,
        totalPages: 2,
        totalElements: 2,
        size: 1,
        number: 0,
        numberOfElements: 1,
      })
      const second = await search('name=Leg&size=1&page=1&sort=firstName,desc')
      expect(second.body).toEqual({
        content: [older],
        sort: [{ direction: 'DESC', property: 'firstName', ignoreCase: false, ascending: false }],
        firstPage: false,
        lastPage: true,
        totalPages: 2,
        totalElements: 2,
        size: 1,
        number: 1,
        numberOfElements: 1,
      })
    })
  })
}
