import { randomBytes } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ApiErrorBody } from '../../src/api/errors/api-error.js'
import { DATABASES } from '../helpers/databases.js'
import type { HttpOptions, HttpResponse } from '../helpers/http.js'
import { MEMBER_KEYS, type MemberBody, updateBody } from '../helpers/members.js'
import { type SuiteServer, serverPerSuite } from '../helpers/server.js'

/**
 * The Member resource over real HTTP (spec: Member, Credential, Page, Member endpoints,
 * Errors; decisions §1, §2, §3, §5, §6, §7), on every database.
 */

const JSON_TYPE = 'application/json;charset=UTF-8'
const ISO_MILLIS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const MEMBER_ID = /^[0-9A-Za-z]{10}$/
const PASSWORD = 'Pa55word-Secret'
const COLLECTION_ALLOW = 'GET, HEAD, POST, OPTIONS'
const ITEM_ALLOW = 'GET, HEAD, PUT, DELETE, OPTIONS'
/** A well-formed member id that no test creates. */
const UNKNOWN_ID = 'ZZZZZZZZZZ'

const CREDENTIAL_KEYS = ['signId', 'passwordLastChangedAt', 'lastModifiedAt']
const PAGE_KEYS = [
  'content',
  'sort',
  'first',
  'last',
  'totalPages',
  'totalElements',
  'size',
  'number',
  'numberOfElements',
]
const SORT_KEYS = ['direction', 'property', 'ignoreCase', 'nullHandling', 'ascending']
/** The sort parameter's pattern, as the Pattern detail names it. */
const SORT_PATTERN =
  '^(memberId|firstName|lastName|dateOfBirth|emailAddress|createdAt|lastModifiedAt)' +
  '(,([aA][sS][cC]|[dD][eE][sS][cC]))?$'

interface PageBody {
  content: MemberBody[]
  sort: unknown[] | null
  first: boolean
  last: boolean
  totalPages: number
  totalElements: number
  size: number
  number: number
  numberOfElements: number
}

type Fields = Record<string, unknown>

// ---- request bodies -------------------------------------------------------------------

const RUN = randomBytes(3).toString('hex')
let sequence = 0

/** An e-mail address no other request of this run uses. */
function uniqueEmail(tag = 'member'): string {
  sequence += 1
  return `${tag}${sequence}.${RUN}@example.com`
}

/** A POST body that passes every Create rule, with `overrides` and `credential` changes on top. */
function validMember(overrides: Fields = {}, credential: Fields = {}): Fields {
  return {
    firstName: 'Taro',
    lastName: 'Yamada',
    genderCode: '1',
    dateOfBirth: '1990-04-01',
    emailAddress: uniqueEmail(),
    telephoneNumber: '090-1234-5678',
    zipCode: '100-0001',
    address: 'Chiyoda, Tokyo',
    credential: { password: PASSWORD, ...credential },
    ...overrides,
  }
}

/** yyyy-MM-dd of today (UTC) moved by `days`. */
function utcDay(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Code-point order, as the service sorts (not the locale's). */
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
const byMemberId = (a: MemberBody, b: MemberBody) => byCodePoint(a.memberId, b.memberId)

// ---- expected error bodies ------------------------------------------------------------

const detail = (code: string, target: string, message: string): ApiErrorBody => ({
  code,
  message,
  target,
})
const notNull = (target: string) => detail('NotNull', target, `${target} may not be null.`)
const notEmpty = (target: string) => detail('NotEmpty', target, `${target} may not be empty.`)
const mustBeNull = (target: string) => detail('Null', target, `${target} must be null.`)
const size = (target: string, min: number, max: number) =>
  detail('Size', target, `${target} size must be between ${min} and ${max}.`)
const email = (target: string) =>
  detail('Email', target, `${target} not a well-formed email address.`)
const past = (target: string) => detail('Past', target, `${target} must be in the past.`)
const inCodeList = (target: string, list: string) =>
  detail('ExistInCodeList', target, `${target} must exist in code list of ${list}.`)
const pathMatch = () =>
  detail('PathMatch', 'memberId', 'memberId must match the member id of the request path.')
const min = (target: string, value: number) =>
  detail('Min', target, `${target} must be greater than or equal to ${value}.`)
const max = (target: string, value: number) =>
  detail('Max', target, `${target} must be less than or equal to ${value}.`)

const bodyValidation = (...details: ApiErrorBody[]): ApiErrorBody => ({
  code: 'e.ex.fw.7001',
  message: 'Validation error occurred on item in the request body.',
  details,
})
const parameterValidation = (...details: ApiErrorBody[]): ApiErrorBody => ({
  code: 'e.ex.fw.7002',
  message: 'Validation error occurred on item in the request parameters.',
  ...(details.length > 0 && { details }),
})
const unknownField = (target: string): ApiErrorBody => ({
  code: 'e.ex.fw.7004',
  message: 'Unknown field exists in JSON.',
  target,
})
const bodyTypeMismatch = (target: string): ApiErrorBody => ({
  code: 'e.ex.fw.7005',
  message: 'Type mismatch error occurred in JSON field.',
  target,
})
const parameterTypeMismatch = (target: string): ApiErrorBody => ({
  code: 'e.ex.fw.7006',
  message: 'Type mismatch error occurred in request parameter or header or path variable.',
  target,
})
const memberNotFound = (memberId: string): ApiErrorBody => ({
  code: 'e.ex.mm.5001',
  message: `Specified member not found. member id : ${memberId}`,
})
const signIdInUse = (signId: string): ApiErrorBody => ({
  code: 'e.ex.mm.8001',
  message: `Cannot use specified sign id. sign id : ${signId}`,
})
const CONFLICT: ApiErrorBody = {
  code: 'e.ex.fw.8002',
  message: 'Conflict with other processing occurred.',
}

function expectApiError(response: HttpResponse, status: number, body: ApiErrorBody): void {
  expect({ status: response.status, body: response.body }).toEqual({ status, body })
  expect(response.headers['content-type']).toBe(JSON_TYPE)
}

function expectEmpty(response: HttpResponse): void {
  expect(response.text).toBe('')
  expect(response.headers['content-type']).toBeUndefined()
}

// ---- per-suite client -----------------------------------------------------------------

/** Requests under /api/v1 and the member operations every suite needs. */
function memberClient(suite: SuiteServer) {
  const call = (method: string, path: string, options?: HttpOptions) =>
    suite.server.request(method, `/api/v1${path}`, options)

  async function createMember(overrides: Fields = {}, credential: Fields = {}) {
    const response = await call('POST', '/members', { body: validMember(overrides, credential) })
    expect(response.status, response.text).toBe(201)
    return response.body as MemberBody
  }

  async function search(query: string): Promise<HttpResponse> {
    return call('GET', `/members?${query}`)
  }

  async function searchPage(query: string): Promise<PageBody> {
    const response = await search(query)
    expect(response.status, response.text).toBe(200)
    return response.body as PageBody
  }

  return { call, createMember, search, searchPage }
}

// ---- create, read, update, delete -----------------------------------------------------

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

    describe('POST /members validation', () => {
      const expectCreateRejected = async (body: unknown, expected: ApiErrorBody) => {
        expectApiError(await call('POST', '/members', { body }), 400, expected)
      }

      it('lists every required field of an empty object, in field-table order', async () => {
        await expectCreateRejected(
          {},
          bodyValidation(
            notEmpty('firstName'),
            notEmpty('lastName'),
            notEmpty('genderCode'),
            notNull('dateOfBirth'),
            notEmpty('emailAddress'),
            notNull('credential'),
          ),
        )
      })

      it('rejects a given memberId with Null, as the first detail', async () => {
        await expectCreateRejected(
          validMember({ memberId: 'M000000001', firstName: '' }),
          bodyValidation(mustBeNull('memberId'), notEmpty('firstName')),
        )
      })

      it('rejects given createdAt and lastModifiedAt with Null', async () => {
        const stamp = '2020-01-01T00:00:00.000Z'
        await expectCreateRejected(
          validMember({ createdAt: stamp, lastModifiedAt: stamp }),
          bodyValidation(mustBeNull('createdAt'), mustBeNull('lastModifiedAt')),
        )
      })

      it('rejects a given credential.passwordLastChangedAt with Null', async () => {
        await expectCreateRejected(
          validMember({}, { passwordLastChangedAt: '2020-01-01T00:00:00.000Z' }),
          bodyValidation(mustBeNull('credential.passwordLastChangedAt')),
        )
      })

      it('rejects a password shorter than 8 with Size 8..32', async () => {
        await expectCreateRejected(
          validMember({}, { password: 'short' }),
          bodyValidation(size('credential.password', 8, 32)),
        )
      })

      it('rejects a password longer than 32 with Size 8..32', async () => {
        await expectCreateRejected(
          validMember({}, { password: 'p'.repeat(33) }),
          bodyValidation(size('credential.password', 8, 32)),
        )
      })

      it('rejects a missing password with NotNull', async () => {
        await expectCreateRejected(
          validMember({ credential: { signId: uniqueEmail() } }),
          bodyValidation(notNull('credential.password')),
        )
      })

      it('rejects a firstName of 129 characters with Size 0..128', async () => {
        await expectCreateRejected(
          validMember({ firstName: 'x'.repeat(129) }),
          bodyValidation(size('firstName', 0, 128)),
        )
      })

      it('rejects a telephoneNumber of 21 characters with Size 0..20', async () => {
        await expectCreateRejected(
          validMember({ telephoneNumber: '1'.repeat(21) }),
          bodyValidation(size('telephoneNumber', 0, 20)),
        )
      })

      it('rejects a genderCode outside CL_GENDER with ExistInCodeList', async () => {
        await expectCreateRejected(
          validMember({ genderCode: '3' }),
          bodyValidation(inCodeList('genderCode', 'CL_GENDER')),
        )
      })

      it('rejects an empty genderCode with NotEmpty only', async () => {
        await expectCreateRejected(
          validMember({ genderCode: '' }),
          bodyValidation(notEmpty('genderCode')),
        )
      })

      it('rejects a dateOfBirth of today (UTC) with Past', async () => {
        await expectCreateRejected(
          validMember({ dateOfBirth: utcDay(0) }),
          bodyValidation(past('dateOfBirth')),
        )
      })

      it('rejects a dateOfBirth of tomorrow with Past', async () => {
        await expectCreateRejected(
          validMember({ dateOfBirth: utcDay(1) }),
          bodyValidation(past('dateOfBirth')),
        )
      })

      it('rejects a dateOfBirth that is no calendar day with 7005', async () => {
        await expectCreateRejected(
          validMember({ dateOfBirth: '2023-02-30' }),
          bodyTypeMismatch('dateOfBirth'),
        )
      })

      it('rejects a malformed emailAddress with Email', async () => {
        await expectCreateRejected(
          validMember({ emailAddress: 'nope' }),
          bodyValidation(email('emailAddress')),
        )
      })

      it('rejects an emailAddress of 257 characters that is no address with Size, then Email', async () => {
        await expectCreateRejected(
          validMember({ emailAddress: 'a'.repeat(257) }),
          bodyValidation(size('emailAddress', 0, 256), email('emailAddress')),
        )
      })

      it('rejects a malformed credential.signId with Email', async () => {
        await expectCreateRejected(
          validMember({}, { signId: 'bad' }),
          bodyValidation(email('credential.signId')),
        )
      })

      it('orders details by the field table, credential fields right after credential', async () => {
        const stamp = '2020-01-01T00:00:00.000Z'
        const body = validMember(
          {
            memberId: 'x',
            firstName: '',
            genderCode: '9',
            emailAddress: 'nope',
            telephoneNumber: '1'.repeat(21),
            address: 'a'.repeat(257),
            createdAt: stamp,
            lastModifiedAt: stamp,
          },
          {
            signId: 'bad',
            password: 'short',
            passwordLastChangedAt: stamp,
            lastModifiedAt: stamp,
          },
        )
        await expectCreateRejected(
          body,
          bodyValidation(
            mustBeNull('memberId'),
            notEmpty('firstName'),
            inCodeList('genderCode', 'CL_GENDER'),
            email('emailAddress'),
            size('telephoneNumber', 0, 20),
            size('address', 0, 256),
            email('credential.signId'),
            size('credential.password', 8, 32),
            mustBeNull('credential.passwordLastChangedAt'),
            mustBeNull('credential.lastModifiedAt'),
            mustBeNull('createdAt'),
            mustBeNull('lastModifiedAt'),
          ),
        )
      })

      it('answers validation messages in Japanese when asked', async () => {
        const response = await call('POST', '/members', {
          headers: { 'accept-language': 'ja' },
          body: validMember({ firstName: '', dateOfBirth: utcDay(1) }, { password: 'short' }),
        })
        expectApiError(response, 400, {
          code: 'e.ex.fw.7001',
          message: 'リクエストボディの項目で入力チェックエラーが発生しました。',
          details: [
            detail('NotEmpty', 'firstName', 'firstNameは空にできません。'),
            detail('Past', 'dateOfBirth', 'dateOfBirthは過去の日付にしてください。'),
            detail(
              'Size',
              'credential.password',
              'credential.passwordのサイズは8から32の間にしてください。',
            ),
          ],
        })
      })

      it('rejects an unknown top-level field with 7004', async () => {
        await expectCreateRejected(validMember({ foo: 1 }), unknownField('foo'))
      })

      it('rejects an unknown credential field with 7004 and its path', async () => {
        await expectCreateRejected(validMember({}, { foo: 'x' }), unknownField('credential.foo'))
      })

      it('rejects a number for firstName with 7005', async () => {
        await expectCreateRejected(validMember({ firstName: 5 }), bodyTypeMismatch('firstName'))
      })

      it('rejects a string for credential with 7005', async () => {
        await expectCreateRejected(validMember({ credential: 'x' }), bodyTypeMismatch('credential'))
      })

      it('rejects a number for credential.password with 7005 and its path', async () => {
        await expectCreateRejected(
          validMember({}, { password: 12345678 }),
          bodyTypeMismatch('credential.password'),
        )
      })
    })

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
        for (const memberId of [UNKNOWN_ID, 'abcde', 'x'.repeat(300)]) {
          expectApiError(await call('GET', `/members/${memberId}`), 404, memberNotFound(memberId))
        }
      })

      it('answers the 404 in Japanese when asked', async () => {
        const response = await call('GET', `/members/${UNKNOWN_ID}`, {
          headers: { 'accept-language': 'ja' },
        })
        expectApiError(response, 404, {
          code: 'e.ex.mm.5001',
          message: `指定された会員が見つかりません。会員ID : ${UNKNOWN_ID}`,
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
        const head = await call('HEAD', `/members/${UNKNOWN_ID}`)
        expect(head.status).toBe(404)
        expect(head.text).toBe('')
      })
    })

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
        const other = member.memberId === UNKNOWN_ID ? 'YYYYYYYYYY' : UNKNOWN_ID
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
        const other = member.memberId === UNKNOWN_ID ? 'YYYYYYYYYY' : UNKNOWN_ID
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
        const response = await call('PUT', `/members/${UNKNOWN_ID}`, {
          body: updateBody(member, { memberId: UNKNOWN_ID }),
        })
        expectApiError(response, 404, memberNotFound(UNKNOWN_ID))
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
          await call('DELETE', `/members/${UNKNOWN_ID}`),
          404,
          memberNotFound(UNKNOWN_ID),
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
          await call('OPTIONS', `/members/${UNKNOWN_ID}`),
          404,
          memberNotFound(UNKNOWN_ID),
        )
      })

      it('answers PATCH with 405 e.ex.fw.6001 and the Allow of the path', async () => {
        const collection = await call('PATCH', '/members')
        expectApiError(collection, 405, {
          code: 'e.ex.fw.6001',
          message: 'Request method not supported.',
        })
        expect(collection.headers.allow).toBe(COLLECTION_ALLOW)
        const item = await call('PATCH', `/members/${UNKNOWN_ID}`)
        expect(item.status).toBe(405)
        expect(item.headers.allow).toBe(ITEM_ALLOW)
      })
    })

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

// ---- search ---------------------------------------------------------------------------

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

// ---- unpaged cap ----------------------------------------------------------------------

/** Inserts bulk members Bulk/Row<n> straight into the database, in chunks. */
async function insertBulkMembers(suite: SuiteServer, from: number, to: number): Promise<void> {
  const stamp = '2026-01-01T00:00:00.000Z'
  for (let start = from; start < to; start += 250) {
    const indexes = Array.from({ length: Math.min(250, to - start) }, (_, offset) => start + offset)
    const id = (index: number) => `BK${String(index).padStart(8, '0')}`
    const members = indexes.map(
      (index) =>
        `('${id(index)}', 'Bulk', 'Row${String(index).padStart(4, '0')}', '1', '2000-01-01', ` +
        `'bulk${index}@example.com', null, null, null, '${stamp}', '${stamp}', 1)`,
    )
    const credentials = indexes.map(
      (index) =>
        `('${id(index)}', 'bulk${index}@example.com', 'not-a-hash', '${stamp}', '${stamp}')`,
    )
    await suite.database.exec(
      `insert into member (member_id, first_name, last_name, gender_code, date_of_birth,
         email_address, telephone_number, zip_code, address, created_at, last_modified_at, version)
       values ${members.join(',\n')};
       insert into member_credential (member_id, sign_id, password_hash,
         password_last_changed_at, last_modified_at)
       values ${credentials.join(',\n')};`,
    )
  }
}

function bulkMember(index: number): MemberBody {
  const stamp = '2026-01-01T00:00:00.000Z'
  return {
    memberId: `BK${String(index).padStart(8, '0')}`,
    firstName: 'Bulk',
    lastName: `Row${String(index).padStart(4, '0')}`,
    genderCode: '1',
    dateOfBirth: '2000-01-01',
    emailAddress: `bulk${index}@example.com`,
    telephoneNumber: null,
    zipCode: null,
    address: null,
    credential: {
      signId: `bulk${index}@example.com`,
      passwordLastChangedAt: stamp,
      lastModifiedAt: stamp,
    },
    createdAt: stamp,
    lastModifiedAt: stamp,
  }
}

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Member unpaged search cap on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const { search } = memberClient(suite)

    beforeAll(async () => {
      await insertBulkMembers(suite, 0, 1000)
    })

    it('answers exactly 1,000 matches as an array of 1,000', async () => {
      const response = await search('name=Bulk&unpaged=true')
      expect(response.status).toBe(200)
      const members = response.body as MemberBody[]
      expect(members).toHaveLength(1000)
      expect(members[0]).toEqual(bulkMember(0))
      expect(members[999]).toEqual(bulkMember(999))
    })

    it('answers more than 1,000 matches with 400 e.ex.fw.7002', async () => {
      await insertBulkMembers(suite, 1000, 1001)
      try {
        expectApiError(
          await search('name=Bulk&unpaged=true'),
          400,
          parameterValidation({
            code: 'ResultLimit',
            message:
              'unpaged returns at most 1000 members; this search matches more: narrow the name or ask for pages.',
            target: 'unpaged',
          }),
        )
        const inJapanese = await suite.server.request(
          'GET',
          '/api/v1/members?name=Bulk&unpaged=true',
          {
            headers: { 'accept-language': 'ja' },
          },
        )
        expect((inJapanese.body as ApiErrorBody).details).toEqual([
          {
            code: 'ResultLimit',
            message:
              'unpagedで返せる会員は最大1000件です。該当件数がそれを超えています。名前を絞り込むか、ページ指定で取得してください。',
            target: 'unpaged',
          },
        ])
        expect((await search('name=Bulk&size=1')).status).toBe(200)
      } finally {
        await suite.database.exec(
          `delete from member_credential where member_id = 'BK00001000';
           delete from member where member_id = 'BK00001000';`,
        )
      }
    })
  })
}

// ---- legacy page format ---------------------------------------------------------------

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
