import { describe, expect, it } from 'vitest'
import { expectApiError, memberNotFound } from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import { COLLECTION_ALLOW, ITEM_ALLOW } from '../helpers/http.js'
import { memberClient, UNKNOWN_MEMBER_ID } from '../helpers/members.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * OPTIONS and unsupported methods on the Member paths, on every database: the Allow of
 * each path and 405 e.ex.fw.6001.
 */

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Member resource on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const { call, createMember } = memberClient(suite)

    describe('OPTIONS and unsupported methods', () => {
      it('lists the methods of the collection', async () => {
        const response = await call('OPTIONS', '/members')
        expect(response.status).toBe(200)
        expect(response.headers.allow).toBe(COLLECTION_ALLOW)
        expect(response.text).toBe('')
      })

      it('lists the methods of an existing member', async () => {
        const member = await createMember()
        const response = await call('OPTIONS', `/members/${member.memberId}`)
        expect(response.status).toBe(200)
        expect(response.headers.allow).toBe(ITEM_ALLOW)
        expect(response.text).toBe('')
      })

      it('answers OPTIONS of an unknown member with 404 e.ex.mm.5001', async () => {
        expectApiError(
          await call('OPTIONS', `/members/${UNKNOWN_MEMBER_ID}`),
          404,
          memberNotFound(UNKNOWN_MEMBER_ID),
        )
      })

      it('answers PATCH with 405 e.ex.fw.6001 and the Allow of the path', async () => {
        const collection = await call('PATCH', '/members')
        expectApiError(collection, 405, {
          code: 'e.ex.fw.6001',
          message: 'Request method not supported.',
        })
        expect(collection.headers.allow).toBe(COLLECTION_ALLOW)
        const item = await call('PATCH', `/members/${UNKNOWN_MEMBER_ID}`)
        expect(item.status).toBe(405)
        expect(item.headers.allow).toBe(ITEM_ALLOW)
      })
    })
  })
}
