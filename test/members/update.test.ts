import { describe, expect, it } from 'vitest'
import {
  bodyValidation,
  CONFLICT,
  expectApiError,
  JSON_TYPE,
  memberNotFound,
  mustBeNull,
  notEmpty,
  pathMatch,
  size,
  unknownField,
} from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import {
  ISO_MILLIS_UTC,
  MEMBER_KEYS,
  type MemberBody,
  memberClient,
  UNKNOWN_MEMBER_ID,
  uniqueEmail,
  updateBody,
} from '../helpers/members.js'
import { serverPerSuite } from '../helpers/server.js'
import { pause } from '../helpers/time.js'

/**
 * PUT /members/{memberId} over real HTTP, on every database (spec: Member endpoints,
 * Errors): changes, If-Match and optimistic locking, refusals.
 */

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Member resource on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const { call, createMember } = memberClient(suite)

    describe('PUT /members/{memberId}', () => {
      const put = (member: MemberBody, body: unknown, headers?: Record<string, string>) =>
        call('PUT', `/members/${member.memberId}`, { body, ...(headers && { headers }) })

      const changedProfile = {
        firstName: 'Hanako',
        lastName: 'Suzuki',
        genderCode: '2',
        dateOfBirth: '1985-12-31',
        emailAddress: 'changed@example.org',
        telephoneNumber: '03-0000-0000',
        zipCode: '530-0001',
        address: 'Kita, Osaka',
      }

      it('overwrites every profile field from the body and answers 200 with ETag "2"', async () => {
        const member = await createMember()
        const response = await put(member, updateBody(member, changedProfile))
        expect(response.status).toBe(200)
        expect(response.headers['content-type']).toBe(JSON_TYPE)
        expect(response.headers.etag).toBe('"2"')
        const updated = response.body as MemberBody
        expect(Object.keys(updated)).toEqual(MEMBER_KEYS)
        expect(updated).toEqual({
          ...member,
          ...changedProfile,
          lastModifiedAt: updated.lastModifiedAt,
        })
      })

      it('keeps memberId, credential and createdAt, and refreshes lastModifiedAt', async () => {
        const member = await createMember()
        await pause(5)
        const before = Date.now()
        const updated = (await put(member, updateBody(member, changedProfile))).body as MemberBody
        expect(updated.memberId).toBe(member.memberId)
        expect(updated.credential).toEqual(member.credential)
        expect(updated.createdAt).toBe(member.createdAt)
        expect(updated.lastModifiedAt).toMatch(ISO_MILLIS_UTC)
        expect(updated.lastModifiedAt).not.toBe(member.lastModifiedAt)
        expect(Date.parse(updated.lastModifiedAt)).toBeGreaterThanOrEqual(before - 1)
        expect(Date.parse(updated.lastModifiedAt)).toBeGreaterThan(Date.parse(member.createdAt))
      })

      it('turns an absent optional field into null', async () => {
        const member = await createMember()
        const body = updateBody(member)
        delete body.telephoneNumber
        delete body.zipCode
        const updated = (await put(member, body)).body as MemberBody
        expect([updated.telephoneNumber, updated.zipCode, updated.address]).toEqual([
          null,
          null,
          member.address,
        ])
      })

      it('counts versions: ETag "3" after a second update, and GET shows the new state', async () => {
        const member = await createMember()
        await put(member, updateBody(member, { firstName: 'Second' }))
        const third = await put(member, updateBody(member, { firstName: 'Third' }))
        expect(third.headers.etag).toBe('"3"')
        const get = await call('GET', `/members/${member.memberId}`)
        expect(get.headers.etag).toBe('"3"')
        expect(get.body).toEqual(third.body)
        expect((get.body as MemberBody).firstName).toBe('Third')
      })

      it('rejects a missing memberId with NotEmpty', async () => {
        const member = await createMember()
        const body = updateBody(member)
        delete body.memberId
        expectApiError(await put(member, body), 400, bodyValidation(notEmpty('memberId')))
      })

      it('rejects a short memberId other than the path id with Size 10..10, then PathMatch', async () => {
        const member = await createMember()
        expectApiError(
          await put(member, updateBody(member, { memberId: 'short' })),
          400,
          bodyValidation(size('memberId', 10, 10), pathMatch()),
        )
      })

      it('rejects an empty memberId with NotEmpty, Size 10..10 and PathMatch (decisions §3)', async () => {
        const member = await createMember()
        expectApiError(
          await put(member, updateBody(member, { memberId: '' })),
          400,
          bodyValidation(notEmpty('memberId'), size('memberId', 10, 10), pathMatch()),
        )
      })

      it('rejects a null memberId with NotEmpty only: null passes PathMatch', async () => {
        const member = await createMember()
        expectApiError(
          await put(member, updateBody(member, { memberId: null })),
          400,
          bodyValidation(notEmpty('memberId')),
        )
      })

      it('rejects a 10-character memberId other than the path id with PathMatch only', async () => {
        const member = await createMember()
        const other = member.memberId === UNKNOWN_MEMBER_ID ? 'YYYYYYYYYY' : UNKNOWN_MEMBER_ID
        expectApiError(
          await put(member, updateBody(member, { memberId: other })),
          400,
          bodyValidation(pathMatch()),
        )
      })

      it('rejects a credential object with Null', async () => {
        const member = await createMember()
        const credential = { signId: uniqueEmail(), password: 'NewPassw0rd' }
        expectApiError(
          await put(member, updateBody(member, { credential })),
          400,
          bodyValidation(mustBeNull('credential')),
        )
      })

      it('rejects a given createdAt with Null', async () => {
        const member = await createMember()
        expectApiError(
          await put(member, updateBody(member, { createdAt: member.createdAt })),
          400,
          bodyValidation(mustBeNull('createdAt')),
        )
      })

      it('rejects a fetched Member posted back as is (credential and time stamps)', async () => {
        const member = await createMember()
        expectApiError(
          await put(member, member),
          400,
          bodyValidation(
            mustBeNull('credential'),
            mustBeNull('createdAt'),
            mustBeNull('lastModifiedAt'),
          ),
        )
      })

      it('lists PathMatch first when it comes with other violations', async () => {
        const member = await createMember()
        const other = member.memberId === UNKNOWN_MEMBER_ID ? 'YYYYYYYYYY' : UNKNOWN_MEMBER_ID
        expectApiError(
          await put(
            member,
            updateBody(member, { memberId: other, firstName: '', zipCode: 'z'.repeat(21) }),
          ),
          400,
          bodyValidation(pathMatch(), notEmpty('firstName'), size('zipCode', 0, 20)),
        )
      })

      it('rejects an unknown field with 7004', async () => {
        const member = await createMember()
        expectApiError(await put(member, updateBody(member, { foo: 1 })), 400, unknownField('foo'))
      })

      it('answers 404 e.ex.mm.5001 for an unknown id with a valid body', async () => {
        const member = await createMember()
        const response = await call('PUT', `/members/${UNKNOWN_MEMBER_ID}`, {
          body: updateBody(member, { memberId: UNKNOWN_MEMBER_ID }),
        })
        expectApiError(response, 404, memberNotFound(UNKNOWN_MEMBER_ID))
      })

      it('answers 412 e.ex.fw.8002 to a stale If-Match and changes nothing', async () => {
        const member = await createMember()
        const current = (await put(member, updateBody(member, { firstName: 'Fresh' })))
          .body as MemberBody
        const stale = await put(member, updateBody(member, { firstName: 'Stale' }), {
          'if-match': '"1"',
        })
        expectApiError(stale, 412, CONFLICT)
        const get = await call('GET', `/members/${member.memberId}`)
        expect(get.headers.etag).toBe('"2"')
        expect(get.body).toEqual(current)
      })

      it('updates when If-Match names the current tag', async () => {
        const member = await createMember()
        await put(member, updateBody(member, { firstName: 'Fresh' }))
        const response = await put(member, updateBody(member, { firstName: 'Matched' }), {
          'if-match': '"2"',
        })
        expect(response.status).toBe(200)
        expect(response.headers.etag).toBe('"3"')
        expect((response.body as MemberBody).firstName).toBe('Matched')
      })

      it('answers 412 to a weak If-Match tag (strong comparison)', async () => {
        const member = await createMember()
        const response = await put(member, updateBody(member, { firstName: 'Weak' }), {
          'if-match': 'W/"1"',
        })
        expectApiError(response, 412, CONFLICT)
        expect((await call('GET', `/members/${member.memberId}`)).body).toEqual(member)
      })
    })
  })
}
