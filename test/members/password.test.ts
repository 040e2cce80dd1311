import { describe, expect, it } from 'vitest'
import { DATABASES } from '../helpers/databases.js'
import { type MemberBody, memberClient, RUN, updateBody, validMember } from '../helpers/members.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * The member's password never leaves the service, on every database: in no response of
 * any member operation and in no log line, at trace level too.
 */

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Member resource on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const { call } = memberClient(suite)

    describe('the password', () => {
      const secret = `Zq9!${RUN}-Secret`

      it('appears in no response of create, conflict, update, get and search', async () => {
        const firstName = `Secret${RUN}`
        const created = await call('POST', '/members', {
          body: validMember({ firstName }, { password: secret }),
        })
        const member = created.body as MemberBody
        const responses = [
          created,
          await call('POST', '/members', {
            body: validMember(
              { firstName },
              { signId: member.credential.signId, password: secret },
            ),
          }),
          await call('PUT', `/members/${member.memberId}`, { body: updateBody(member) }),
          await call('GET', `/members/${member.memberId}`),
          await call('GET', `/members?name=${firstName}`),
          await call('GET', `/members?name=${firstName}&unpaged=true`),
        ]
        expect(responses.map((response) => response.status)).toEqual([201, 409, 200, 200, 200, 200])
        for (const response of responses) {
          expect(response.text).not.toContain(secret)
          expect(response.text).not.toContain('$argon2id$')
          expect(response.text).not.toContain('"password"')
        }
      })

      it('appears in no log line', async () => {
        await call('POST', '/members', { body: validMember({}, { password: secret }) })
        await call('POST', '/members', {
          body: validMember({ genderCode: '7' }, { password: secret }),
        })
        const logs = suite.server.logs
        expect(logs.some((line) => line.route === '/api/v1/members')).toBe(true)
        const text = JSON.stringify(logs)
        expect(text).not.toContain(secret)
        expect(text).not.toContain('$argon2id')
      })
    })
  })
}

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Member logs at trace level on ${target.name}`, () => {
    const suite = serverPerSuite(target, { LOG_LEVEL: 'trace' })

    it('log every query but never a password or its hash', async () => {
      const password = 'Trace-Level-Secret'
      const created = await suite.server.request('POST', '/api/v1/members', {
        body: {
          firstName: 'Trace',
          lastName: 'Level',
          genderCode: '0',
          dateOfBirth: '1980-01-01',
          emailAddress: 'trace@example.com',
          credential: { password },
        },
      })
      expect(created.status).toBe(201)
      const memberId = (created.body as { memberId: string }).memberId
      await suite.server.request('GET', `/api/v1/members/${memberId}`)
      const logs = JSON.stringify(suite.server.logs)
      expect(suite.server.logs.filter((line) => line.msg === 'query').length).toBeGreaterThan(2)
      expect(logs).not.toContain(password)
      expect(logs).not.toContain('$argon2id')
    })
  })
}
