import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newMemberId } from '../../src/domain/member/member-id.js'
import type { NewMember } from '../../src/domain/member/model.js'
import { hashPassword } from '../../src/domain/member/password.js'
import { MemberService } from '../../src/domain/member/service.js'
import { createDatabase, type Database } from '../../src/infra/db/create-database.js'
import { KyselyMemberRepository } from '../../src/infra/member/member-repository.js'
import { prefixRange } from '../../src/infra/member/prefix-range.js'
import { DATABASES, type IsolatedDatabase } from '../helpers/databases.js'

describe('newMemberId', () => {
  it('draws 10 characters of [0-9A-Za-z], all of them, without repeats', () => {
    const ids = Array.from({ length: 20_000 }, newMemberId)
    for (const id of ids) expect(id).toMatch(/^[0-9A-Za-z]{10}$/)
    expect(new Set(ids).size).toBe(ids.length)
    const seen = new Set(ids.join(''))
    expect(seen.size).toBe(62)
  })
})

describe('hashPassword', () => {
  it('gives an argon2id PHC string with the OWASP parameters, salted per call', async () => {
    const [first, second] = await Promise.all([
      hashPassword('secret-pass'),
      hashPassword('secret-pass'),
    ])
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/)
    expect(first).not.toBe(second)
    expect(first).not.toContain('secret-pass')
  })
})

describe('prefixRange', () => {
  it('bounds a prefix by the next code point of its last character', () => {
    expect(prefixRange('Ab')).toEqual({ from: 'Ab', below: 'Ac' })
    expect(prefixRange('a%')).toEqual({ from: 'a%', below: 'a&' })
    expect(prefixRange('x\uD7FF')).toEqual({ from: 'x\uD7FF', below: 'x\uE000' })
    expect(prefixRange('😀')).toEqual({ from: '😀', below: '😁' })
    expect(prefixRange('a\u{10FFFF}')).toEqual({ from: 'a\u{10FFFF}', below: 'b' })
    expect(prefixRange('\u{10FFFF}')).toEqual({ from: '\u{10FFFF}', below: undefined })
  })
})

const input = (emailAddress: string, signId: string | null = null): NewMember => ({
  firstName: 'Hanako',
  lastName: 'Sato',
  genderCode: '2',
  dateOfBirth: '1985-05-05',
  emailAddress,
  telephoneNumber: null,
  zipCode: null,
  address: null,
  credential: { signId, password: 'secret-pass' },
})

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`MemberService.create on ${target.name}`, () => {
    let isolated: IsolatedDatabase
    let database: Database

    beforeAll(async () => {
      isolated = await target.create()
      database = await createDatabase(isolated.config)
    })
    afterAll(async () => {
      await database?.close()
      await isolated?.drop()
    })

    function serviceDrawing(ids: string[]) {
      return new MemberService({
        repository: new KyselyMemberRepository(database.db),
        now: () => new Date('2026-11-22T09:15:02.123Z'),
        newId: () => ids.shift() ?? 'EXHAUSTED0',
        hashPassword: async (password) => `hashed:${password.length}`,
      })
    }

    it('draws another id when the drawn one is taken, never surfacing the collision', async () => {
      const service = serviceDrawing(['SAMEID0001', 'SAMEID0001', 'OTHERID002'])
      expect((await service.create(input('one@example.com'))).memberId).toBe('SAMEID0001')
      const second = await service.create(input('two@example.com'))
      expect(second.memberId).toBe('OTHERID002')
      expect((await service.get('OTHERID002')).credential.signId).toBe('two@example.com')
    })

    it('gives up with an error (a 500) only after five taken ids in a row', async () => {
      const service = serviceDrawing(['TAKEN00001', ...Array(5).fill('TAKEN00001')])
      await service.create(input('taken@example.com'))
      await expect(service.create(input('later@example.com'))).rejects.toThrow('no free member id')
    })

    it('defaults the sign id to the lower-cased e-mail address for null and ""', async () => {
      const service = serviceDrawing(['DEFAULTS01', 'DEFAULTS02', 'DEFAULTS03'])
      expect((await service.create(input('Mixed.Case@Example.COM'))).credential.signId).toBe(
        'mixed.case@example.com',
      )
      expect((await service.create(input('Empty@Example.com', ''))).credential.signId).toBe(
        'empty@example.com',
      )
      expect(
        (await service.create(input('x@example.com', 'Given@Example.com'))).credential.signId,
      ).toBe('Given@Example.com')
    })
  })
}
