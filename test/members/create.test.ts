import { describe, expect, it } from 'vitest'
import { expectApiError, JSON_TYPE, signIdInUse } from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import {
  CREDENTIAL_KEYS,
  ISO_MILLIS_UTC,
  MEMBER_ID,
  MEMBER_KEYS,
  type MemberBody,
  memberClient,
  RUN,
  uniqueEmail,
  utcDay,
  validMember,
} from '../helpers/members.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * POST /members over real HTTP, on every database: the created Member (spec: Member,
 * Credential) and sign id conflicts. Refusals by the Create rules: create-validation.test.ts.
 */

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Member resource on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const { call, createMember, searchPage } = memberClient(suite)

    describe('POST /members', () => {
      it('answers 201 with exactly the Member fields in order, without password or version', async () => {
        const body = validMember()
        const response = await call('POST', '/members', { body })
        expect(response.status).toBe(201)
        expect(response.headers['content-type']).toBe(JSON_TYPE)
        const member = response.body as MemberBody
        expect(Object.keys(member)).toEqual(MEMBER_KEYS)
        expect(Object.keys(member.credential)).toEqual(CREDENTIAL_KEYS)
        expect(member).toEqual({
          memberId: expect.stringMatching(MEMBER_ID),
          firstName: 'Taro',
          lastName: 'Yamada',
          genderCode: '1',
          dateOfBirth: '1990-04-01',
          emailAddress: body.emailAddress,
          telephoneNumber: '090-1234-5678',
          zipCode: '100-0001',
          address: 'Chiyoda, Tokyo',
          credential: {
            signId: body.emailAddress,
            passwordLastChangedAt: expect.stringMatching(ISO_MILLIS_UTC),
            lastModifiedAt: expect.stringMatching(ISO_MILLIS_UTC),
          },
          createdAt: expect.stringMatching(ISO_MILLIS_UTC),
          lastModifiedAt: expect.stringMatching(ISO_MILLIS_UTC),
        })
        expect(response.text).not.toContain('"password"')
        expect(response.text).not.toContain('version')
      })

      it('sets the four time stamps to one UTC instant, the time of the request', async () => {
        const before = Date.now()
        const member = await createMember()
        const after = Date.now()
        expect(member.createdAt).toMatch(ISO_MILLIS_UTC)
        expect([
          member.lastModifiedAt,
          member.credential.passwordLastChangedAt,
          member.credential.lastModifiedAt,
        ]).toEqual([member.createdAt, member.createdAt, member.createdAt])
        expect(Date.parse(member.createdAt)).toBeGreaterThanOrEqual(before - 1)
        expect(Date.parse(member.createdAt)).toBeLessThanOrEqual(after)
      })

      it('answers Location with the absolute URL of the new member and ETag "1"', async () => {
        const response = await call('POST', '/members', { body: validMember() })
        const { memberId } = response.body as MemberBody
        expect(response.headers.location).toBe(`${suite.server.baseUrl}/api/v1/members/${memberId}`)
        expect(response.headers.etag).toBe('"1"')
      })

      it('assigns each member its own 10-character [0-9A-Za-z] id', async () => {
        const first = await createMember()
        const second = await createMember()
        expect(first.memberId).toMatch(MEMBER_ID)
        expect(second.memberId).toMatch(MEMBER_ID)
        expect(first.memberId).not.toBe(second.memberId)
      })

      it('answers absent optional fields as null, also on GET', async () => {
        const body = validMember()
        delete body.telephoneNumber
        delete body.zipCode
        delete body.address
        const response = await call('POST', '/members', { body })
        const member = response.body as MemberBody
        expect([member.telephoneNumber, member.zipCode, member.address]).toEqual([null, null, null])
        expect((await call('GET', `/members/${member.memberId}`)).body).toEqual(member)
      })

      it('keeps null and "" distinct, also on GET', async () => {
        const member = await createMember({ telephoneNumber: '', zipCode: null, address: '' })
        expect([member.telephoneNumber, member.zipCode, member.address]).toEqual(['', null, ''])
        const fetched = (await call('GET', `/members/${member.memberId}`)).body as MemberBody
        expect([fetched.telephoneNumber, fetched.zipCode, fetched.address]).toEqual(['', null, ''])
      })

      it('uses the lower-cased e-mail address as sign id when signId is null', async () => {
        const emailAddress = `Mixed.Case${RUN}@Example.COM`
        const member = await createMember({ emailAddress }, { signId: null })
        expect(member.emailAddress).toBe(emailAddress)
        expect(member.credential.signId).toBe(emailAddress.toLowerCase())
      })

      it('uses the lower-cased e-mail address as sign id when signId is ""', async () => {
        const emailAddress = `Empty.Sign${RUN}@Example.COM`
        const member = await createMember({ emailAddress }, { signId: '' })
        expect(member.credential.signId).toBe(emailAddress.toLowerCase())
      })

      it('keeps a given sign id exactly as given, letter case included', async () => {
        const signId = `Given.Sign${RUN}@Example.COM`
        const member = await createMember({}, { signId })
        expect(member.credential.signId).toBe(signId)
        expect((await call('GET', `/members/${member.memberId}`)).body).toEqual(member)
      })

      it('accepts every value at the limits of its rule', async () => {
        const body = validMember(
          {
            firstName: 'F'.repeat(128),
            lastName: 'L'.repeat(128),
            genderCode: '0',
            dateOfBirth: utcDay(-1),
            telephoneNumber: '1'.repeat(20),
            zipCode: '2'.repeat(20),
            address: 'A'.repeat(256),
          },
          { password: 'p'.repeat(32) },
        )
        const response = await call('POST', '/members', { body })
        expect(response.status, response.text).toBe(201)
        expect(response.body).toMatchObject({
          firstName: body.firstName,
          lastName: body.lastName,
          genderCode: '0',
          dateOfBirth: body.dateOfBirth,
          address: body.address,
        })
        for (const genderCode of ['1', '2']) await createMember({ genderCode })
        await createMember({}, { password: 'p'.repeat(8) })
      })
    })

    describe('sign id conflicts', () => {
      it('answers 409 e.ex.mm.8001 when the sign id is taken, and creates nothing', async () => {
        const firstName = `Dup${RUN}`
        const first = await createMember({ firstName })
        const signId = first.credential.signId
        const response = await call('POST', '/members', {
          body: validMember({ firstName }, { signId }),
        })
        expectApiError(response, 409, signIdInUse(signId))
        expect((await searchPage(`name=${firstName}`)).totalElements).toBe(1)
      })

      it('answers the sign id conflict in Japanese when asked', async () => {
        const signId = uniqueEmail('ja')
        await createMember({}, { signId })
        const response = await call('POST', '/members', {
          headers: { 'accept-language': 'ja' },
          body: validMember({}, { signId }),
        })
        expectApiError(response, 409, {
          code: 'e.ex.mm.8001',
          message: `指定されたサインIDは使用できません。サインID : ${signId}`,
        })
      })

      it('compares sign ids as stored: A@x.com and a@x.com are different sign ids', async () => {
        const upper = await createMember({}, { signId: `A${RUN}@x.com` })
        const lower = await createMember({}, { signId: `a${RUN}@x.com` })
        expect([upper.credential.signId, lower.credential.signId]).toEqual([
          `A${RUN}@x.com`,
          `a${RUN}@x.com`,
        ])
      })
    })
  })
}
