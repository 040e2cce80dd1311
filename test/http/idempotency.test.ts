import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { DATABASES } from '../helpers/databases.js'
import type { HttpOptions, HttpResponse } from '../helpers/http.js'
import { countStatuses } from '../helpers/http.js'
import { serverPerSuite } from '../helpers/server.js'
import { pause } from '../helpers/time.js'
import { addTrigger } from '../helpers/triggers.js'

/**
 * Idempotency-Key on POST (decisions §7) over real HTTP, on each database: a retry gets
 * the first outcome and creates nothing, another request with the key is 422, a
 * duplicate arriving while the first runs is 409, and a key lives 24 hours.
 */

const RUN = randomBytes(3).toString('hex')
const CONCURRENT = { timeout: 60_000 }
const PARALLEL_DUPLICATES = 20

const REUSED = {
  code: 'e.ex.fw.7008',
  message: 'Idempotency key was used for a different request.',
}
const IN_FLIGHT = {
  code: 'e.ex.fw.8003',
  message: 'A request with the same idempotency key is being processed.',
}
const BAD_HEADER = {
  code: 'e.ex.fw.7006',
  message: 'Type mismatch error occurred in request parameter or header or path variable.',
}

let sequence = 0
/** A key no other test uses. */
function newKey(): string {
  sequence += 1
  return `key-${RUN}-${sequence}`
}

function member(emailAddress: string, signId: string | null = null) {
  return {
    firstName: 'Idem',
    lastName: `Potent${RUN}`,
    genderCode: '2',
    dateOfBirth: '1980-02-29',
    emailAddress,
    credential: { signId, password: 'Retry-Pa55word' },
  }
}

const withKey = (key: string, body: unknown, headers: Record<string, string> = {}) => ({
  body,
  headers: { 'idempotency-key': key, ...headers },
})

/** The count of a `select count(*) as n` (a string on PostgreSQL). */
function countOf(rows: readonly Record<string, unknown>[]): number {
  return Number(rows[0]?.n)
}

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Idempotency-Key on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const call = (method: string, path: string, options?: HttpOptions) =>
      suite.server.request(method, `/api/v1${path}`, options)
    const todoCount = async () => ((await call('GET', '/todos')).body as unknown[]).length
    const membersNamed = async () =>
      (await call('GET', `/members?name=Potent${RUN}&unpaged=true`)).body as {
        memberId: string
        emailAddress: string
      }[]
    /** Moves a stored key's first use back in time, as if that much time had passed. */
    const age = (key: string, milliseconds: number) =>
      suite.database.exec(
        `update idempotency_key set created_at = '${new Date(Date.now() - milliseconds).toISOString()}' where idempotency_key = '${key}'`,
      )

    it('answers a retry of a create with the first outcome and creates nothing', async () => {
      const key = newKey()
      const before = await todoCount()
      const first = await call('POST', '/todos', withKey(key, { todoTitle: 'Once' }))
      const retry = await call('POST', '/todos', withKey(key, { todoTitle: 'Once' }))

      expect(first.status).toBe(201)
      expect(first.headers['idempotent-replayed']).toBeUndefined()
      expect(retry.status).toBe(201)
      expect(retry.text).toBe(first.text)
      expect(retry.headers.location).toBe(first.headers.location)
      expect(retry.headers.etag).toBe(first.headers.etag)
      expect(retry.headers['content-type']).toBe('application/json;charset=UTF-8')
      expect(retry.headers['idempotent-replayed']).toBe('true')
      expect(await todoCount()).toBe(before + 1)
    })

    it('creates one member for a retried create, and the same body again', async () => {
      const key = newKey()
      const body = member(`once.${RUN}@example.com`)
      const first = await call('POST', '/members', withKey(key, body))
      const retry = await call('POST', '/members', withKey(key, body))
      expect(first.status).toBe(201)
      expect(retry.status).toBe(201)
      expect(retry.body).toEqual(first.body)
      const created = (first.body as { memberId: string }).memberId
      expect((await membersNamed()).filter(({ memberId }) => memberId === created)).toHaveLength(1)
    })

    it('refuses the key with another body or another path (422 e.ex.fw.7008)', async () => {
      const key = newKey()
      expect((await call('POST', '/todos', withKey(key, { todoTitle: 'First' }))).status).toBe(201)
      const before = await todoCount()

      const otherBody = await call('POST', '/todos', withKey(key, { todoTitle: 'Second' }))
      expect({ status: otherBody.status, body: otherBody.body }).toEqual({
        status: 422,
        body: REUSED,
      })
      const otherPath = await call(
        'POST',
        '/members',
        withKey(key, member(`other.${RUN}@example.com`)),
      )
      expect({ status: otherPath.status, body: otherPath.body }).toEqual({
        status: 422,
        body: REUSED,
      })
      const inJapanese = await call(
        'POST',
        '/todos',
        withKey(key, { todoTitle: 'Third' }, { 'accept-language': 'ja' }),
      )
      expect(inJapanese.body).toEqual({
        code: 'e.ex.fw.7008',
        message: 'この冪等キーは別のリクエストで使用されています。',
      })
      expect(await todoCount()).toBe(before)
    })

    it('refuses the key with another password (422), without keeping a trace of it', async () => {
      const body = member(`secret.${RUN}@example.com`)
      const key = newKey()
      const first = await call('POST', '/members', withKey(key, body))
      expect(first.status).toBe(201)
      // The password is part of "the same request": a retry with another one is another
      // request, not a success that silently drops the new password.
      const otherPassword = {
        ...body,
        credential: { ...body.credential, password: 'Other-Pa55word' },
      }
      const refused = await call('POST', '/members', withKey(key, otherPassword))
      expect({ status: refused.status, body: refused.body }).toEqual({ status: 422, body: REUSED })
      const samePassword = await call('POST', '/members', withKey(key, body))
      expect(samePassword.status).toBe(201)
      expect(samePassword.headers['idempotent-replayed']).toBe('true')
      expect(samePassword.text).toBe(first.text)
      const created = (first.body as { memberId: string }).memberId
      const sameEmail = (await membersNamed()).filter(
        ({ emailAddress }) => emailAddress === body.emailAddress,
      )
      expect(sameEmail.map(({ memberId }) => memberId)).toEqual([created])

      // It enters the fingerprint only through argon2id: the row holds neither the
      // password nor a hash of it that could be tested fast.
      const rows = await suite.database.query<Record<string, unknown>>(
        `select * from idempotency_key where idempotency_key = '${key}'`,
      )
      expect(rows).toHaveLength(1)
      expect(JSON.stringify(rows)).not.toContain(body.credential.password)
      expect(JSON.stringify(rows)).not.toContain('$argon2')
      expect(rows[0]?.request_hash).toMatch(/^[0-9a-f]{64}$/)
    })

    it(
      `lets ${PARALLEL_DUPLICATES} concurrent duplicates create exactly one member`,
      CONCURRENT,
      async () => {
        const key = newKey()
        const body = member(`parallel.${RUN}@example.com`)
        const responses = await Promise.all(
          Array.from({ length: PARALLEL_DUPLICATES }, () =>
            call('POST', '/members', withKey(key, body)),
          ),
        )
        const counts = countStatuses(responses)
        expect((counts[201] ?? 0) + (counts[409] ?? 0)).toBe(PARALLEL_DUPLICATES)
        const created = responses.filter(({ status }) => status === 201)
        expect(created.length).toBeGreaterThanOrEqual(1)
        // Hashing the password takes long enough that most duplicates find the key in flight.
        expect(counts[409]).toBeGreaterThanOrEqual(1)
        const original = created.find(({ headers }) => headers['idempotent-replayed'] !== 'true')
        expect(original).toBeDefined()
        if (original === undefined) throw new Error('no original answer')
        for (const response of created) expect(response.text).toBe(original.text)
        for (const response of responses.filter(({ status }) => status === 409)) {
          expect(response.body).toEqual(IN_FLIGHT)
        }
        const memberId = (original.body as { memberId: string }).memberId
        const sameEmail = (await membersNamed()).filter((found) => found.memberId === memberId)
        expect(sameEmail).toHaveLength(1)

        // Once the first has finished, the retry gets its outcome.
        const retry = await call('POST', '/members', withKey(key, body))
        expect(retry.status).toBe(201)
        expect(retry.text).toBe(original.text)
      },
    )

    it('keeps a key 24 hours: after that the same request creates anew', async () => {
      const key = newKey()
      const first = await call('POST', '/todos', withKey(key, { todoTitle: 'Daily' }))
      await age(key, 23 * 60 * 60 * 1000)
      const withinADay = await call('POST', '/todos', withKey(key, { todoTitle: 'Daily' }))
      expect(withinADay.headers.location).toBe(first.headers.location)

      await age(key, 24 * 60 * 60 * 1000 + 1000)
      const nextDay = await call('POST', '/todos', withKey(key, { todoTitle: 'Daily' }))
      expect(nextDay.status).toBe(201)
      expect(nextDay.headers['idempotent-replayed']).toBeUndefined()
      expect(nextDay.headers.location).not.toBe(first.headers.location)
      // And the new outcome is the one kept from now on.
      const retry = await call('POST', '/todos', withKey(key, { todoTitle: 'Daily' }))
      expect(retry.headers.location).toBe(nextDay.headers.location)
    })

    it('deletes the keys past their 24 hours once it listens, and keeps the younger ones', async () => {
      const [old, young] = [newKey(), newKey()]
      await call('POST', '/todos', withKey(old, { todoTitle: 'Purged' }))
      await call('POST', '/todos', withKey(young, { todoTitle: 'Kept' }))
      await age(old, 24 * 60 * 60 * 1000 + 1000)
      await age(young, 23 * 60 * 60 * 1000)
      const stored = async () =>
        (
          await suite.database.query<{ idempotency_key: string }>(
            `select idempotency_key from idempotency_key where idempotency_key in ('${old}', '${young}')`,
          )
        ).map((row) => row.idempotency_key)
      expect((await stored()).sort()).toEqual([old, young].sort())
      // The purge runs when the server starts listening, then hourly (src/app.ts).
      await suite.restart()
      let kept = await stored()
      for (let waited = 0; kept.includes(old) && waited < 5_000; waited += 100) {
        await pause(100)
        kept = await stored()
      }
      expect(kept).toEqual([young])
    })

    it('frees a key whose request was cut off (a crash) once its lease has run out', async () => {
      const key = newKey()
      await suite.database.exec(
        `insert into idempotency_key (idempotency_key, request_hash, created_at) values ('${key}', 'from-a-crashed-process', '${new Date(Date.now() - 61_000).toISOString()}')`,
      )
      const answer = await call('POST', '/todos', withKey(key, { todoTitle: 'Taken over' }))
      expect(answer.status).toBe(201)
      expect(answer.headers['idempotent-replayed']).toBeUndefined()

      const recent = newKey()
      await suite.database.exec(
        `insert into idempotency_key (idempotency_key, request_hash, created_at) values ('${recent}', 'still-running', '${new Date(Date.now() - 1000).toISOString()}')`,
      )
      const refused = await call('POST', '/todos', withKey(recent, { todoTitle: 'Too soon' }))
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 422,
        body: REUSED,
      })
    })

    it('keeps a business refusal (409 sign id in use) like any other outcome', async () => {
      const signId = `taken.${RUN}@example.com`
      expect((await call('POST', '/members', { body: member(signId) })).status).toBe(201)
      const key = newKey()
      const refused = await call('POST', '/members', withKey(key, member(signId)))
      const again = await call('POST', '/members', withKey(key, member(signId)))
      expect(refused.status).toBe(409)
      expect(again.status).toBe(409)
      expect(again.text).toBe(refused.text)
      expect(again.headers['idempotent-replayed']).toBe('true')
    })

    it('holds no key for a request that fails validation', async () => {
      const key = newKey()
      const invalid = await call('POST', '/todos', withKey(key, { todoTitle: '' }))
      expect(invalid.status).toBe(400)
      const valid = await call('POST', '/todos', withKey(key, { todoTitle: 'Corrected' }))
      expect(valid.status).toBe(201)
      expect(valid.headers['idempotent-replayed']).toBeUndefined()
    })

    it('frees the key when the request fails on our side (5xx), so the retry is processed', async () => {
      const key = newKey()
      await suite.database.exec('alter table todo rename to todo_away')
      let failed: HttpResponse
      try {
        failed = await call('POST', '/todos', withKey(key, { todoTitle: 'Unlucky' }))
      } finally {
        await suite.database.exec('alter table todo_away rename to todo')
      }
      expect(failed.status).toBe(500)
      const retry = await call('POST', '/todos', withKey(key, { todoTitle: 'Unlucky' }))
      expect(retry.status).toBe(201)
      expect(retry.headers['idempotent-replayed']).toBeUndefined()
    })

    describe('stores the resource and its answer in one transaction', () => {
      /** Each resource with the count of stored ones that match its body. */
      const resources = [
        {
          path: '/todos',
          body: (tag: string) => ({ todoTitle: `Atomic ${tag}` }),
          stored: async (tag: string) =>
            countOf(
              await suite.database.query(
                `select count(*) as n from todo where todo_title = 'Atomic ${tag}'`,
              ),
            ),
        },
        {
          path: '/members',
          body: (tag: string) => member(`atomic.${tag}.${RUN}@example.com`),
          stored: async (tag: string) =>
            countOf(
              await suite.database.query(
                `select count(*) as n from member where email_address = 'atomic.${tag}.${RUN}@example.com'`,
              ),
            ),
        },
      ]
      const keyRows = (key: string) =>
        suite.database.query(`select * from idempotency_key where idempotency_key = '${key}'`)

      for (const resource of resources) {
        it(`creates no ${resource.path.slice(1, -1)} when the outcome write fails, and frees the key`, async () => {
          const key = newKey()
          const tag = key.split('-').pop() as string
          const body = resource.body(tag)
          const dropTrigger = await addTrigger(suite.database, {
            name: 'fail_outcome',
            table: 'idempotency_key',
            event: 'update',
            action: 'fail',
          })
          let failed: HttpResponse
          try {
            failed = await call('POST', resource.path, withKey(key, body))
          } finally {
            await dropTrigger()
          }
          expect({ status: failed.status, body: failed.body }).toEqual({
            status: 500,
            body: { code: 'e.ex.fw.9002', message: 'System error occurred.' },
          })
          expect(await resource.stored(tag)).toBe(0)
          expect(await keyRows(key)).toEqual([])

          const retry = await call('POST', resource.path, withKey(key, body))
          expect(retry.status).toBe(201)
          expect(retry.headers['idempotent-replayed']).toBeUndefined()
          expect(await resource.stored(tag)).toBe(1)
          const again = await call('POST', resource.path, withKey(key, body))
          expect(again.status).toBe(201)
          expect(again.headers['idempotent-replayed']).toBe('true')
          expect(again.text).toBe(retry.text)
          expect(again.headers.location).toBe(retry.headers.location)
          expect(await resource.stored(tag)).toBe(1)
        })

        it(`creates no ${resource.path.slice(1, -1)} when its claim on the key is gone by the outcome write (409)`, async () => {
          const key = newKey()
          const tag = key.split('-').pop() as string
          // The outcome write touches no row, as when a retry took the expired claim over.
          const dropTrigger = await addTrigger(suite.database, {
            name: 'lose_claim',
            table: 'idempotency_key',
            event: 'update',
            action: 'skip',
          })
          let lost: HttpResponse
          try {
            lost = await call('POST', resource.path, withKey(key, resource.body(tag)))
          } finally {
            await dropTrigger()
          }
          expect({ status: lost.status, body: lost.body }).toEqual({ status: 409, body: IN_FLIGHT })
          expect(await resource.stored(tag)).toBe(0)
        })
      }
    })

    it('answers 400 e.ex.fw.7006 for a key that is empty, too long or not visible ASCII', async () => {
      for (const key of ['', 'k'.repeat(256), 'with space', 'clé']) {
        const answer = await call('POST', '/todos', withKey(key, { todoTitle: 'Keyed' }))
        expect({ key, status: answer.status, body: answer.body }).toEqual({
          key,
          status: 400,
          body: BAD_HEADER,
        })
      }
      const longest = await call('POST', '/todos', withKey('k'.repeat(255), { todoTitle: 'Keyed' }))
      expect(longest.status).toBe(201)
    })

    it('changes nothing for requests without the header', async () => {
      const body = { todoTitle: 'Twice' }
      const first = await call('POST', '/todos', { body })
      const second = await call('POST', '/todos', { body })
      expect([first.status, second.status]).toEqual([201, 201])
      expect(second.headers.location).not.toBe(first.headers.location)
    })
  })
}
