import { describe, it } from 'vitest'
import type { ApiErrorBody } from '../../src/api/errors/api-error.js'
import {
  bodyTypeMismatch,
  bodyValidation,
  detail,
  email,
  expectApiError,
  inCodeList,
  mustBeNull,
  notEmpty,
  notNull,
  past,
  size,
  unknownField,
} from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import { memberClient, uniqueEmail, utcDay, validMember } from '../helpers/members.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * POST /members refused by the Create rules, on every database (spec: Member, Errors):
 * each rule's 400 and its details, unknown fields, wrong types.
 */

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Member resource on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const { call } = memberClient(suite)

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
  })
}
