import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { CONFLICT, memberNotFound } from '../helpers/api-errors.js'
import { DATABASES, type IsolatedDatabase } from '../helpers/databases.js'
import type { HttpOptions, HttpResponse } from '../helpers/http.js'
import { type MemberBody, updateBody } from '../helpers/members.js'
import { serverPerSuite } from '../helpers/server.js'
import { pause } from '../helpers/time.js'

/**
 * Writes racing deletes of the same resource over real HTTP (decisions §4, §5, §7): each
 * request answers one of the statuses the contract allows (never a 5xx), and what is
 * left afterwards agrees with the answers, down to the rows in the database (a deleted
 * member leaves no credential behind).
 */

const RACE_TEST = { timeout: 60_000 }
const ROUNDS = 6
const PARALLEL_UPDATES = 30
const RUN = randomBytes(3).toString('hex')

const TODO_NOT_FOUND = (todoId: string) => ({
  code: 'e.ex.td.5001',
  message: `Specified todo not found. todo id : ${todoId}`,
})
const TODO_ALREADY_FINISHED = (todoId: string) => ({
  code: 'e.ex.td.8001',
  message: `Specified todo is already finished. todo id : ${todoId}`,
})

interface TodoBody {
  todoId: string
  todoTitle: string
  finished: boolean
  createdAt: string
}

/** Sends the request after `delayMs` (0: at once), to vary which side of a race wins. */
function after<T>(delayMs: number, send: () => Promise<T>): Promise<T> {
  return delayMs === 0 ? send() : pause(delayMs).then(send)
}

/**
 * Checks that `response` is one of the `allowed` answers: its status is a key, and its
 * body equals that key's value (`undefined`: no body; a function: checked by it).
 */
function expectOneOf(
  response: HttpResponse,
  allowed: Record<number, unknown>,
  context: string,
): void {
  expect(Object.keys(allowed).map(Number), `${context}: ${response.text}`).toContain(
    response.status,
  )
  const expected = allowed[response.status]
  if (typeof expected === 'function') {
    ;(expected as (response: HttpResponse) => void)(response)
  } else {
    expect(response.body, context).toEqual(expected)
  }
}

interface MemberRows {
  /** Rows of the member table with the id. */
  readonly member: number
  /** Rows of member_credential with the id. */
  readonly credential: number
  /** Credentials in the whole database whose member row is missing. */
  readonly orphanCredentials: number
}

/** Reads the member's rows straight from the database, outside the service. */
async function memberRows(database: IsolatedDatabase, memberId: string): Promise<MemberRows> {
  // Member ids are 10 characters of [0-9A-Za-z]: safe to write into the SQL.
  const count = async (sql: string) =>
    Number((await database.query<{ n: number | string }>(sql))[0]?.n)
  return {
    member: await count(`select count(*) as n from member where member_id = '${memberId}'`),
    credential: await count(
      `select count(*) as n from member_credential where member_id = '${memberId}'`,
    ),
    orphanCredentials: await count(
      'select count(*) as n from member_credential c ' +
        'where not exists (select 1 from member m where m.member_id = c.member_id)',
    ),
  }
}

const GONE: MemberRows = { member: 0, credential: 0, orphanCredentials: 0 }
const WHOLE: MemberRows = { member: 1, credential: 1, orphanCredentials: 0 }

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Races on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const call = (method: string, path: string, options?: HttpOptions) =>
      suite.server.request(method, `/api/v1${path}`, options)
    let sequence = 0

    async function createMember(firstName: string): Promise<MemberBody> {
      sequence += 1
      const response = await call('POST', '/members', {
        body: {
          firstName,
          lastName: 'Racer',
          genderCode: '1',
          dateOfBirth: '1980-02-29',
          emailAddress: `race.${RUN}.${sequence}@example.com`,
          telephoneNumber: '03-1234-5678',
          credential: { password: 'Racing-Pa55' },
        },
      })
      expect(response.status).toBe(201)
      return response.body as MemberBody
    }

    async function createTodo(todoTitle: string): Promise<TodoBody> {
      const response = await call('POST', '/todos', { body: { todoTitle } })
      expect(response.status).toBe(201)
      return response.body as TodoBody
    }

    /** A 200 of PUT /members/{id}: the member with the first name sent, and an ETag. */
    const updatedMember = (member: MemberBody, firstName: string) => (response: HttpResponse) => {
      const body = response.body as MemberBody
      expect(body).toEqual({ ...member, firstName, lastModifiedAt: body.lastModifiedAt })
      expect(response.headers.etag).toMatch(/^"\d+"$/)
    }

    async function expectMemberGone(memberId: string, context: string): Promise<void> {
      const read = await call('GET', `/members/${memberId}`)
      expect({ status: read.status, body: read.body }, context).toEqual({
        status: 404,
        body: memberNotFound(memberId),
      })
      expect(await memberRows(suite.database, memberId), context).toEqual(GONE)
    }

    it(
      `a member update racing its delete: 200/404/409 and 204, then gone with its credential (${ROUNDS} rounds)`,
      RACE_TEST,
      async () => {
        for (let round = 0; round < ROUNDS; round += 1) {
          const member = await createMember(`Del${round}`)
          const path = `/members/${member.memberId}`
          const context = `round ${round}`
          // Alternate which request leaves first, and by how much.
          const putDelay = round % 2 === 0 ? 0 : round % 3
          const deleteDelay = round % 2 === 0 ? round % 3 : 0
          const [put, del] = await Promise.all([
            after(putDelay, () =>
              call('PUT', path, { body: updateBody(member, { firstName: `Upd${round}` }) }),
            ),
            after(deleteDelay, () => call('DELETE', path)),
          ])
          expectOneOf(
            put,
            {
              200: updatedMember(member, `Upd${round}`),
              404: memberNotFound(member.memberId),
              409: CONFLICT,
            },
            `${context} PUT`,
          )
          expectOneOf(del, { 204: undefined, 404: memberNotFound(member.memberId) }, context)
          // Nothing else deletes it: the unconditional DELETE finds it.
          expect(del.status, context).toBe(204)
          await expectMemberGone(member.memberId, context)
        }
      },
    )

    it(
      `a conditional member update racing a conditional delete (If-Match "1"): exactly one wins (${ROUNDS} rounds)`,
      RACE_TEST,
      async () => {
        for (let round = 0; round < ROUNDS; round += 1) {
          const member = await createMember(`Cond${round}`)
          const path = `/members/${member.memberId}`
          const context = `round ${round}`
          const ifMatch = { 'if-match': '"1"' }
          const [put, del] = await Promise.all([
            after(round % 2 === 0 ? 0 : round % 3, () =>
              call('PUT', path, {
                headers: ifMatch,
                body: updateBody(member, { firstName: `Won${round}` }),
              }),
            ),
            after(round % 2 === 0 ? round % 3 : 0, () =>
              call('DELETE', path, { headers: ifMatch }),
            ),
          ])
          expectOneOf(
            put,
            {
              200: updatedMember(member, `Won${round}`),
              404: memberNotFound(member.memberId),
              412: CONFLICT,
            },
            `${context} PUT`,
          )
          expectOneOf(
            del,
            { 204: undefined, 404: memberNotFound(member.memberId), 412: CONFLICT },
            `${context} DELETE`,
          )
          // Both expected version 1: exactly one of them can have written.
          expect([put.status === 200, del.status === 204].filter(Boolean), context).toHaveLength(1)
          if (del.status === 204) {
            await expectMemberGone(member.memberId, context)
          } else {
            expect(put.headers.etag, context).toBe('"2"')
            const read = await call('GET', path)
            expect({ status: read.status, etag: read.headers.etag, body: read.body }).toEqual({
              status: 200,
              etag: '"2"',
              body: put.body,
            })
            expect(await memberRows(suite.database, member.memberId), context).toEqual(WHOLE)
            expect((await call('DELETE', path)).status, context).toBe(204)
            await expectMemberGone(member.memberId, context)
          }
        }
      },
    )

    for (const round of [1, 2]) {
      it(
        `${PARALLEL_UPDATES} parallel updates of one member racing one delete (round ${round})`,
        RACE_TEST,
        async () => {
          const member = await createMember(`Many${round}`)
          const path = `/members/${member.memberId}`
          const deleteAt = round === 1 ? PARALLEL_UPDATES / 2 : 3
          const requests: Promise<HttpResponse>[] = []
          for (let index = 0; index < PARALLEL_UPDATES; index += 1) {
            if (index === deleteAt) requests.push(call('DELETE', path))
            requests.push(
              call('PUT', path, { body: updateBody(member, { firstName: `Writer${index}` }) }),
            )
          }
          const responses = await Promise.all(requests)
          const del = responses[deleteAt] as HttpResponse
          const puts = responses.filter((_, index) => index !== deleteAt)
          expect({ status: del.status, body: del.body }).toEqual({ status: 204, body: undefined })

          const versions: number[] = []
          puts.forEach((put, index) => {
            expectOneOf(
              put,
              {
                200: updatedMember(member, `Writer${index}`),
                404: memberNotFound(member.memberId),
                409: CONFLICT,
              },
              `PUT ${index}`,
            )
            if (put.status === 200) versions.push(Number(JSON.parse(put.headers.etag ?? '')))
          })
          // The updates that won before the delete each wrote their own version: 2, 3, ...
          expect(versions.sort((a, b) => a - b)).toEqual(
            Array.from({ length: versions.length }, (_, index) => index + 2),
          )
          await expectMemberGone(member.memberId, `round ${round}`)
        },
      )
    }

    /** What DELETE sends, and whether its precondition can fail. */
    const DELETE_VARIANTS = [
      { name: 'without If-Match', headers: {} },
      { name: 'If-Match "1" (open)', headers: { 'if-match': '"1"' } },
      { name: 'If-Match "2" (finished)', headers: { 'if-match': '"2"' } },
    ] as const

    for (const variant of DELETE_VARIANTS) {
      it(
        `finishing a Todo racing its delete ${variant.name}: allowed answers, consistent end (${ROUNDS} rounds)`,
        RACE_TEST,
        async () => {
          for (let round = 0; round < ROUNDS; round += 1) {
            const todo = await createTodo(`Race ${round}`)
            const path = `/todos/${todo.todoId}`
            const context = `round ${round}`
            // Odd rounds finish twice, so one finish may find it finished already.
            const finishes = 1 + (round % 2)
            const deleteDelay = round % 3
            const [del, ...puts] = await Promise.all([
              after(deleteDelay, () => call('DELETE', path, { headers: variant.headers })),
              ...Array.from({ length: finishes }, () => call('PUT', path)),
            ])
            const deleteResponse = del as HttpResponse
            const finished = { ...todo, finished: true }
            for (const put of puts) {
              expectOneOf(
                put,
                {
                  200: (response: HttpResponse) => {
                    expect(response.body, context).toEqual(finished)
                    expect(response.headers.etag, context).toBe('"2"')
                  },
                  404: TODO_NOT_FOUND(todo.todoId),
                  409: TODO_ALREADY_FINISHED(todo.todoId),
                },
                `${context} PUT`,
              )
            }
            expectOneOf(
              deleteResponse,
              { 204: undefined, 404: TODO_NOT_FOUND(todo.todoId), 412: CONFLICT },
              `${context} DELETE`,
            )

            const finishedBy = puts.filter(({ status }) => status === 200).length
            expect(finishedBy, context).toBeLessThanOrEqual(1)
            // "Already finished" means another finish won.
            if (puts.some(({ status }) => status === 409)) expect(finishedBy, context).toBe(1)

            const read = await call('GET', path)
            if (deleteResponse.status === 204) {
              expect({ status: read.status, body: read.body }, context).toEqual({
                status: 404,
                body: TODO_NOT_FOUND(todo.todoId),
              })
            } else {
              // Only this DELETE removes it: not deleted, it is there, and finished.
              expect({ status: read.status, etag: read.headers.etag, body: read.body }).toEqual({
                status: 200,
                etag: '"2"',
                body: finished,
              })
              expect(finishedBy, context).toBe(1)
            }
            if (variant.name === 'without If-Match') {
              expect(deleteResponse.status, context).toBe(204)
            } else if (deleteResponse.status === 204) {
              // Deleted while open: nothing finished it; deleted once finished: one did.
              expect(finishedBy, context).toBe(variant.headers['if-match'] === '"1"' ? 0 : 1)
            }
          }
        },
      )
    }
  })
}
