import { describe, expect, it } from 'vitest'
import { CONFLICT, expectApiError, expectEmpty, memberNotFound } from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import { memberClient, UNKNOWN_MEMBER_ID, uniqueEmail, updateBody } from '../helpers/members.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * DELETE /members/{memberId} over real HTTP, on every database (spec: Member endpoints).
 */

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Member resource on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const { call, createMember } = memberClient(suite)

    describe('DELETE /members/{memberId}', () => {
      it('answers 204 without body or Content-Type, then GET answers 404', async () => {
        const member = await createMember()
        const response = await call('DELETE', `/members/${member.memberId}`)
        expect(response.status).toBe(204)
        expectEmpty(response)
        expectApiError(
          await call('GET', `/members/${member.memberId}`),
          404,
          memberNotFound(member.memberId),
        )
      })

      it('removes the credential too: its sign id can be used again', async () => {
        const member = await createMember({}, { signId: uniqueEmail('reuse') })
        await call('DELETE', `/members/${member.memberId}`)
        const again = await createMember({}, { signId: member.credential.signId })
        expect(again.credential.signId).toBe(member.credential.signId)
        expect(again.memberId).not.toBe(member.memberId)
      })

      it('answers 404 e.ex.mm.5001 for an unknown id', async () => {
        expectApiError(
          await call('DELETE', `/members/${UNKNOWN_MEMBER_ID}`),
          404,
          memberNotFound(UNKNOWN_MEMBER_ID),
        )
      })

      it('answers 412 to a stale If-Match and the member stays; 204 on a match', async () => {
        const member = await createMember()
        await call('PUT', `/members/${member.memberId}`, { body: updateBody(member) })
        const stale = await call('DELETE', `/members/${member.memberId}`, {
          headers: { 'if-match': '"1"' },
        })
        expectApiError(stale, 412, CONFLICT)
        expect((await call('GET', `/members/${member.memberId}`)).status).toBe(200)
        const matched = await call('DELETE', `/members/${member.memberId}`, {
          headers: { 'if-match': '"2"' },
        })
        expect(matched.status).toBe(204)
      })
    })
  })
}
