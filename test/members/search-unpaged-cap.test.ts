import { beforeAll, describe, expect, it } from 'vitest'
import type { ApiErrorBody } from '../../src/api/errors/api-error.js'
import { expectApiError, parameterValidation } from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import { type MemberBody, memberClient } from '../helpers/members.js'
import { type SuiteServer, serverPerSuite } from '../helpers/server.js'

/**
 * GET /members?unpaged=true and its cap, with 1,000 members inserted straight into the
 * database, on every database.
 */

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
