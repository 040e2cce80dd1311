import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { JSON_TYPE } from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import { memberCreateBody } from '../helpers/members.js'
import { labelledValue } from '../helpers/metrics.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * Expensive work past its limits (decisions §9): with room for one password hash and
 * none waiting, a burst of member creations is answered 201 for those that got a place
 * and 503 e.ex.fw.9005 with Retry-After for the others, which created nothing; the
 * refusals are counted by kind and reason.
 */

const BURST = 8
const RUN = randomBytes(3).toString('hex')

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`A busy instance on ${target.name}`, () => {
    const suite = serverPerSuite(target, {
      HASH_CONCURRENCY: '1',
      QUEUE_LENGTH: '0',
      QUEUE_TIMEOUT: '2000',
    })

    const shed = async () =>
      labelledValue((await suite.server.request('GET', '/metrics')).text, 'work_shed_total', {
        work: 'hashing',
        reason: 'queue_full',
      }) ?? 0

    it('refuses what finds no place with 503 e.ex.fw.9005 and Retry-After, having stored nothing', async () => {
      const before = await shed()
      const answers = await Promise.all(
        Array.from({ length: BURST }, (_, index) =>
          suite.server.request('POST', '/api/v1/members', {
            headers: { 'accept-language': index % 2 === 0 ? 'en' : 'ja' },
            body: memberCreateBody('Busy', `Burst${index}`, `busy-${RUN}-${index}@example.com`),
          }),
        ),
      )
      const created = answers.filter((answer) => answer.status === 201)
      const refused = answers.filter((answer) => answer.status !== 201)
      expect(created.length).toBeGreaterThanOrEqual(1)
      expect(refused.length).toBeGreaterThanOrEqual(1)
      for (const answer of refused) {
        expect(answer.status).toBe(503)
        expect(answer.headers['content-type']).toBe(JSON_TYPE)
        expect(answer.headers['retry-after']).toBe('2')
        expect([
          { code: 'e.ex.fw.9005', message: 'The service is busy. Retry later.' },
          {
            code: 'e.ex.fw.9005',
            message: 'サービスが混み合っています。しばらくしてから再試行してください。',
          },
        ]).toContainEqual(answer.body)
      }
      expect(await shed()).toBe(before + refused.length)
      // Exactly the members answered 201 exist.
      const found = await suite.server.request('GET', '/api/v1/members?name=Busy&size=100')
      const emails = (found.body as { content: { emailAddress: string }[] }).content
        .map((member) => member.emailAddress)
        .filter((email) => email.startsWith(`busy-${RUN}-`))
      expect(emails.sort()).toEqual(
        created.map((answer) => (answer.body as { emailAddress: string }).emailAddress).sort(),
      )
    })
  })
}
