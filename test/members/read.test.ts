import { describe, expect, it } from 'vitest'
import { expectApiError, expectEmpty, JSON_TYPE, memberNotFound } from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import { memberClient, UNKNOWN_MEMBER_ID } from '../helpers/members.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * GET /members/{memberId} over real HTTP, on every database (spec: Member endpoints).
 */

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Member resource on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const { call, createMember } = memberClient(suite)

    describe('GET /members/{memberId}', () => {
      it('answers 200 with the created member and ETag "1"', async () => {
        const member = await createMember()
        const response = await call('GET', `/members/${member.memberId}`)
        expect(response.status).toBe(200)
        expect(response.headers['content-type']).toBe(JSON_TYPE)
        expect(response.headers.etag).toBe('"1"')
        expect(response.body).toEqual(member)
      })

      it('answers 404 e.ex.mm.5001 for an unknown id, however it looks', async () => {
        for (const memberId of [UNKNOWN_MEMBER_ID, 'abcde', 'x'.repeat(300)]) {
          expectApiError(await call('GET', `/members/${memberId}`), 404, memberNotFound(memberId))
        }
      })

      it('answers the 404 in Japanese when asked', async () => {
        const response = await call('GET', `/members/${UNKNOWN_MEMBER_ID}`, {
          headers: { 'accept-language': 'ja' },
        })
        expectApiError(response, 404, {
          code: 'e.ex.mm.5001',
          message: `指定された会員が見つかりません。会員ID : ${UNKNOWN_MEMBER_ID}`,
        })
      })

      it('answers 304 with the ETag and no body when If-None-Match names it', async () => {
        const member = await createMember()
        const response = await call('GET', `/members/${member.memberId}`, {
          headers: { 'if-none-match': '"1"' },
        })
        expect(response.status).toBe(304)
        expect(response.headers.etag).toBe('"1"')
        expectEmpty(response)
      })

      it('answers HEAD with the GET headers and no body', async () => {
        const member = await createMember()
        const get = await call('GET', `/members/${member.memberId}`)
        const head = await call('HEAD', `/members/${member.memberId}`)
        expect(head.status).toBe(200)
        expect(head.text).toBe('')
        expect(head.headers['content-type']).toBe(JSON_TYPE)
        expect(head.headers.etag).toBe('"1"')
        expect(head.headers['content-length']).toBe(get.headers['content-length'])
      })

      it('answers HEAD of an unknown id with 404 and no body', async () => {
        const head = await call('HEAD', `/members/${UNKNOWN_MEMBER_ID}`)
        expect(head.status).toBe(404)
        expect(head.text).toBe('')
      })
    })
  })
}
