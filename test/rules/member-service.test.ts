import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BusinessRuleError, ResourceNotFoundError } from '../../src/domain/common/errors.js'
import { hashPassword, hashSecret } from '../../src/infra/crypto/argon2.js'
import type { Database } from '../../src/infra/db/create-database.js'
import { KyselyUnitOfWork } from '../../src/infra/db/unit-of-work.js'
import { newMemberId } from '../../src/resources/member/domain/member-id.js'
import type { Member, NewMember } from '../../src/resources/member/domain/model.js'
import { MemberService } from '../../src/resources/member/domain/service.js'
import { prefixRange } from '../../src/resources/member/infra/prefix-range.js'
import { unbounded } from '../helpers/bulkheads.js'
import { DATABASES, type IsolatedDatabase, openDatabase } from '../helpers/databases.js'
import { repositoriesOf } from '../helpers/repositories.js'

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

describe('hashSecret', () => {
  it('gives the same 32 bytes for the same secret and salt, other bytes for another salt', async () => {
    const salt = Buffer.alloc(32, 1)
    const [first, again, otherSalt, otherSecret] = await Promise.all([
      hashSecret('secret-pass', salt),
      hashSecret('secret-pass', salt),
      hashSecret('secret-pass', Buffer.alloc(32, 2)),
      hashSecret('secret-pasS', salt),
    ])
    expect(first).toHaveLength(32)
    expect(Buffer.from(again).equals(first)).toBe(true)
    expect(Buffer.from(otherSalt).equals(first)).toBe(false)
    expect(Buffer.from(otherSecret).equals(first)).toBe(false)
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
      database = await openDatabase(isolated.config)
    })
    afterAll(async () => {
      await database?.close()
      await isolated?.drop()
    })

    function serviceDrawing(ids: string[]) {
      const repositories = repositoriesOf(database)
      return new MemberService({
        repository: repositories.members,
        unitOfWork: new KyselyUnitOfWork(database.db, repositories),
        now: () => new Date('2026-11-22T09:15:02.123Z'),
        newId: () => ids.shift() ?? 'EXHAUSTED0',
        hashPassword: async (password) => `hashed:${password.length}`,
        searches: unbounded(),
        hashing: unbounded(),
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

    it("runs the work alongside in the insert's transaction: it sees the member", async () => {
      const service = serviceDrawing(['ALONGSIDE1'])
      const seen: (Member | undefined)[] = []
      const created = await service.create(
        input('alongside@example.com'),
        async (member, scope) => {
          seen.push(await scope.members.findById(member.memberId))
        },
      )
      expect(seen).toEqual([created])
      expect(await service.get('ALONGSIDE1')).toEqual(created)
    })

    it('stores no member when the work alongside fails', async () => {
      const service = serviceDrawing(['ROLLEDBAK1'])
      const failing = async () => {
        throw new Error('alongside failed')
      }
      await expect(service.create(input('rolled.back@example.com'), failing)).rejects.toThrow(
        'alongside failed',
      )
      await expect(service.get('ROLLEDBAK1')).rejects.toThrow(ResourceNotFoundError)
      // The sign id is free again.
      const again = serviceDrawing(['ROLLEDBAK2'])
      expect((await again.create(input('rolled.back@example.com'))).memberId).toBe('ROLLEDBAK2')
    })

    it('retries a taken id in a new unit of work, and runs the work alongside once', async () => {
      const service = serviceDrawing(['SAMEID0003', 'SAMEID0003', 'OTHERID004'])
      await service.create(input('first.uow@example.com'))
      const calls: string[] = []
      const second = await service.create(input('second.uow@example.com'), async (member) => {
        calls.push(member.memberId)
      })
      expect(second.memberId).toBe('OTHERID004')
      expect(calls).toEqual(['OTHERID004'])
      expect((await service.get('OTHERID004')).credential.signId).toBe('second.uow@example.com')
    })

    it('refuses a taken sign id without running the work alongside', async () => {
      const service = serviceDrawing(['SIGNID0001', 'SIGNID0002'])
      await service.create(input('taken.uow@example.com'))
      let called = false
      const refused = service.create(input('taken.uow@example.com'), async () => {
        called = true
      })
      await expect(refused).rejects.toBeInstanceOf(BusinessRuleError)
      expect(called).toBe(false)
      await expect(service.get('SIGNID0002')).rejects.toThrow(ResourceNotFoundError)
    })
  })
}
