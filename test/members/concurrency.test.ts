import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { CONFLICT } from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import type { HttpOptions } from '../helpers/http.js'
import { countStatuses } from '../helpers/http.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * Concurrent requests on one member over real HTTP (decisions §5): the sign id's unique
 * index lets exactly one create win, and optimistic locking loses no update.
 */

const CONCURRENT = { timeout: 60_000 }
const PARALLEL_CREATES = 20
const PARALLEL_UPDATES = 50
const RUN = randomBytes(3).toString('hex')
/** Members created at once while another client reads their search page (decisions §9). */
const SNAPSHOT_WRITERS = 6
const SNAPSHOT_CREATES_EACH = 8
const SNAPSHOT_PAGE_SIZE = 100

interface SearchPage {
  content: unknown[]
  numberOfElements: number
  totalElements: number
  totalPages: number
}

const SIGN_ID_IN_USE = (signId: string) => ({
  code: 'e.ex.mm.8001',
  message: `Cannot use specified sign id. sign id : ${signId}`,
})

interface MemberBody {
  memberId: string
  firstName: string
  credential: { signId: string }
}

function memberBody(firstName: string, emailAddress: string, signId: string | null = null) {
  return {
    firstName,
    lastName: 'Racer',
    genderCode: '0',
    dateOfBirth: '1970-01-01',
    emailAddress,
    credential: { signId, password: 'Parallel-Pa55' },
  }
}

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Member concurrency on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const call = (method: string, path: string, options?: HttpOptions) =>
      suite.server.request(method, `/api/v1${path}`, options)

    for (const round of [1, 2]) {
      it(
        `lets exactly one of ${PARALLEL_CREATES} parallel creates with one sign id win (round ${round})`,
        CONCURRENT,
        async () => {
          const firstName = `Race${round}x${RUN}`
          const signId = `race${round}.${RUN}@example.com`
          const responses = await Promise.all(
            Array.from({ length: PARALLEL_CREATES }, (_, index) =>
              call('POST', '/members', {
                body: memberBody(firstName, `racer${index}.${round}.${RUN}@example.com`, signId),
              }),
            ),
          )
          expect(countStatuses(responses)).toEqual({ 201: 1, 409: PARALLEL_CREATES - 1 })
          for (const response of responses.filter(({ status }) => status === 409)) {
            expect(response.body).toEqual(SIGN_ID_IN_USE(signId))
          }
          const winner = responses.find(({ status }) => status === 201)?.body as MemberBody
          expect(winner.credential.signId).toBe(signId)

          const search = await call('GET', `/members?name=${firstName}&unpaged=true`)
          expect(search.status).toBe(200)
          expect(search.body).toEqual([winner])
        },
      )
    }

    for (const round of [1, 2]) {
      it(
        `loses none of ${PARALLEL_UPDATES} parallel updates of one member (round ${round})`,
        CONCURRENT,
        async () => {
          const created = await call('POST', '/members', {
            body: memberBody(`Upd${round}x${RUN}`, `updated.${round}.${RUN}@example.com`),
          })
          expect(created.status).toBe(201)
          const member = created.body as MemberBody & Record<string, unknown>
          const { credential: _credential, createdAt: _c, lastModifiedAt: _l, ...profile } = member

          const names = Array.from({ length: PARALLEL_UPDATES }, (_, index) => `Writer${index}`)
          const responses = await Promise.all(
            names.map((firstName) =>
              call('PUT', `/members/${member.memberId}`, { body: { ...profile, firstName } }),
            ),
          )

          const succeeded = responses.filter(({ status }) => status === 200)
          const failed = responses.filter(({ status }) => status !== 200)
          expect(succeeded.length).toBeGreaterThanOrEqual(1)
          for (const response of failed) {
            expect({ status: response.status, body: response.body }).toEqual({
              status: 409,
              body: CONFLICT,
            })
          }
          // Every success wrote its own version: 2, 3, ... 1 + successes, none twice.
          const versions = succeeded.map((response) =>
            Number(JSON.parse(response.headers.etag ?? '')),
          )
          expect([...versions].sort((a, b) => a - b)).toEqual(
            Array.from({ length: succeeded.length }, (_, index) => index + 2),
          )

          const current = await call('GET', `/members/${member.memberId}`)
          expect(current.headers.etag).toBe(`"${1 + succeeded.length}"`)
          const winners = succeeded.map((response) => (response.body as MemberBody).firstName)
          expect(winners).toContain((current.body as MemberBody).firstName)
          const last = succeeded.find((response) => response.headers.etag === current.headers.etag)
          expect(current.body).toEqual(last?.body)
        },
      )
    }

    it(
      'answers every search page from one snapshot while members are created: a page never holds more than totalElements',
      CONCURRENT,
      async () => {
        const firstName = `Snap${RUN}`
        let writing = true
        const writers = Array.from({ length: SNAPSHOT_WRITERS }, async (_, writer) => {
          for (let index = 0; index < SNAPSHOT_CREATES_EACH; index += 1) {
            const created = await call('POST', '/members', {
              body: memberBody(firstName, `snap${writer}.${index}.${RUN}@example.com`),
            })
            expect(created.status).toBe(201)
          }
        })
        const pages: SearchPage[] = []
        const searcher = (async () => {
          while (writing || pages.length < 3) {
            const page = await call('GET', `/members?name=${firstName}&size=${SNAPSHOT_PAGE_SIZE}`)
            expect(page.status).toBe(200)
            pages.push(page.body as SearchPage)
          }
        })()
        await Promise.all(writers).finally(() => {
          writing = false
        })
        await searcher
        const inconsistent = pages.filter(
          (page) =>
            page.numberOfElements !== page.content.length ||
            page.content.length !== Math.min(SNAPSHOT_PAGE_SIZE, page.totalElements) ||
            page.totalPages !== Math.ceil(page.totalElements / SNAPSHOT_PAGE_SIZE),
        )
        expect(inconsistent.map(({ content, ...counts }) => counts)).toEqual([])
        // The last page read may have started before the last create: one more, after all.
        const after = await call('GET', `/members?name=${firstName}&size=${SNAPSHOT_PAGE_SIZE}`)
        expect((after.body as SearchPage).totalElements).toBe(
          SNAPSHOT_WRITERS * SNAPSHOT_CREATES_EACH,
        )
      },
    )
  })
}
