import { describe, expect, it } from 'vitest'
import {
  BODY_TYPE_MISMATCH,
  expectApiError,
  PARAMETER_TYPE_MISMATCH,
  PARAMETER_VALIDATION,
} from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * Values an attacker sends where the contract names a type: query integers in every
 * text form, ids the database cannot hold, dates at and past the calendar's edges, a
 * sort repeated to slow the database down. Each gets its 4xx ApiError, the same on
 * every database (decisions §1, §2, §6).
 */

const MEMBERS = '/api/v1/members'
const TODOS = '/api/v1/todos'

/** Query integers that are not an optional `-` and decimal digits within the safe range. */
const NOT_INTEGERS = [
  'Infinity',
  '-Infinity',
  '1e309',
  '1e3',
  '5.0',
  '0x10',
  '%205',
  '5%20',
  '+5',
  '',
  'NaN',
  '99999999999999999999999',
  '9007199254740992',
  '１２',
]

/** Member ids and todo ids that no database row can have. */
const UNSTORABLE_IDS = ['a%00', '%00', 'abcdefghi%00', '%FF', '%ED%A0%80', 'ab%C0%AF', '%ZZ', '%']

function member(dateOfBirth: string, tag: string) {
  return {
    firstName: 'Edge',
    lastName: tag,
    genderCode: '1',
    dateOfBirth,
    emailAddress: `edge.${tag}@example.com`,
    credential: { password: 'Pa55word-Secret' },
  }
}

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`hostile values on ${target.name}`, () => {
    const suite = serverPerSuite(target)

    describe('query integers (page, size)', () => {
      it.each(NOT_INTEGERS.flatMap((value) => ['page', 'size'].map((name) => [name, value])))(
        '%s=%s is a value that cannot be converted: 400 e.ex.fw.7006',
        async (name, value) => {
          const response = await suite.server.request('GET', `${MEMBERS}?name=a&${name}=${value}`)
          expectApiError(response, 400, { ...PARAMETER_TYPE_MISMATCH, target: name })
        },
      )

      it('takes leading zeros and -0 as the decimal integers they are', async () => {
        const response = await suite.server.request('GET', `${MEMBERS}?name=a&page=-0&size=007`)
        expect(response.status).toBe(200)
        expect(response.body).toMatchObject({ number: 0, size: 7 })
      })
    })

    describe('ids the database cannot hold', () => {
      // A member PUT body must name the path's id, which no valid body can: 400 comes first.
      const cases = UNSTORABLE_IDS.flatMap((id) => [
        ...['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].map((method) => [method, TODOS, id]),
        ...['GET', 'HEAD', 'DELETE', 'OPTIONS'].map((method) => [method, MEMBERS, id]),
      ])
      it.each(cases)("%s %s/%s answers the resource's 404", async (method, collection, id) => {
        const response = await suite.server.request(method, `${collection}/${id}`)
        expect(response.status).toBe(404)
        if (method === 'HEAD') return
        const code = collection === TODOS ? 'e.ex.td.5001' : 'e.ex.mm.5001'
        expect((response.body as { code: string }).code).toBe(code)
      })
    })

    describe('dates at and past the edges of the calendar', () => {
      it.each([
        ['0000-01-01', 400],
        ['10000-01-01', 400],
        ['2023-02-29', 400],
        ['-0001-01-01', 400],
        ['0001-01-01', 201],
        ['2024-02-29', 201],
      ])('dateOfBirth %s on create and update answers %i', async (date, status) => {
        const tag = `d${date.replace(/\D/g, '')}`
        const created = await suite.server.request('POST', MEMBERS, { body: member(date, tag) })
        expect(created.status).toBe(status)
        if (status === 400) {
          expectApiError(created, 400, { ...BODY_TYPE_MISMATCH, target: 'dateOfBirth' })
          return
        }
        const { memberId } = created.body as { memberId: string }
        const updated = await suite.server.request('PUT', `${MEMBERS}/${memberId}`, {
          body: { ...member('0000-12-31', tag), memberId, credential: null },
        })
        expectApiError(updated, 400, { ...BODY_TYPE_MISMATCH, target: 'dateOfBirth' })
        const stored = await suite.server.request('GET', `${MEMBERS}/${memberId}`)
        expect((stored.body as { dateOfBirth: string }).dateOfBirth).toBe(date)
      })
    })

    describe('sort', () => {
      it('names each property at most once: a repeat is 400 e.ex.fw.7002', async () => {
        const repeated = Array.from({ length: 780 }, () => 'sort=lastName,desc').join('&')
        for (const query of [repeated, 'sort=lastName&sort=lastName,DESC']) {
          const response = await suite.server.request('GET', `${MEMBERS}?name=a&${query}`)
          expectApiError(response, 400, {
            ...PARAMETER_VALIDATION,
            details: [
              {
                code: 'UniqueElements',
                message: 'sort may name each property only once.',
                target: 'sort',
              },
            ],
          })
        }
        const distinct = await suite.server.request(
          'GET',
          `${MEMBERS}?name=a&sort=lastName,desc&sort=firstName&sort=memberId`,
        )
        expect(distinct.status).toBe(200)
      })

      it('says so in Japanese too', async () => {
        const response = await suite.server.request(
          'GET',
          `${MEMBERS}?name=a&sort=lastName&sort=lastName`,
          { headers: { 'accept-language': 'ja' } },
        )
        expect((response.body as { details: unknown[] }).details).toEqual([
          {
            code: 'UniqueElements',
            message: 'sortでは各プロパティを一度だけ指定してください。',
            target: 'sort',
          },
        ])
      })
    })

    describe('protective headers', () => {
      it('every /api/v1 answer carries X-Content-Type-Options: nosniff', async () => {
        const answers = await Promise.all([
          suite.server.request('GET', TODOS),
          suite.server.request('GET', `${TODOS}/unknown`),
          suite.server.request('PATCH', TODOS),
          suite.server.request('GET', '/api/v1/nothing-here'),
          suite.server.request('GET', `${MEMBERS}?name=`),
          suite.server.request('GET', '/api/v1/openapi.json'),
        ])
        for (const answer of answers)
          expect(answer.headers['x-content-type-options']).toBe('nosniff')
      })

      it('answers carrying member data are not stored by any cache', async () => {
        const created = await suite.server.request('POST', MEMBERS, {
          body: member('1990-01-01', 'cache'),
        })
        const { memberId } = created.body as { memberId: string }
        const answers = [
          created,
          await suite.server.request('GET', `${MEMBERS}/${memberId}`),
          await suite.server.request('HEAD', `${MEMBERS}/${memberId}`),
          await suite.server.request('GET', `${MEMBERS}?name=Edge`),
          await suite.server.request('GET', `${MEMBERS}?name=Edge&unpaged=true`),
          await suite.server.request('PUT', `${MEMBERS}/${memberId}`, {
            body: { ...member('1990-01-02', 'cache'), memberId, credential: null },
          }),
        ]
        for (const answer of answers) {
          expect(answer.status).toBeLessThan(300)
          expect(answer.headers['cache-control']).toBe('no-store')
        }
      })
    })
  })
}

describe.skipIf(!DATABASES[0]?.available)('the docs page on sqlite', () => {
  const suite = serverPerSuite(DATABASES[0] as (typeof DATABASES)[number])

  it('answers a file it does not have with 404, not 405', async () => {
    const response = await suite.server.request('GET', '/api/docs/static/no-such-file.js')
    expectApiError(response, 404, { code: 'e.ex.fw.5001', message: 'Resource not found.' })
  })
})
