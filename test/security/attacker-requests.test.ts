import { describe, expect, it } from 'vitest'
import { BODY_TOO_LARGE, JSON_TYPE } from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import type { HttpOptions, HttpResponse } from '../helpers/http.js'
import {
  type MemberBody,
  RUN,
  TEST_PASSWORDS,
  UNKNOWN_MEMBER_ID,
  updateBody,
} from '../helpers/members.js'
import { rawExchange } from '../helpers/raw-http.js'
import { HEADER_TOO_LARGE, TODOS, UNKNOWN_TODO_ID } from '../helpers/raw-todos.js'
import {
  createMember,
  createTodo,
  DATA_ACCESS_ERROR,
  DATA_ACCESS_ERROR_JA,
  INJECTIONS,
  MEMBERS,
  METHODS,
  newMember,
  PASSWORDS,
  PLAIN_HEADERS,
  paddedJson,
  recorder,
  routeTable,
  secretsIn,
  secretsInLogs,
  sendPasswordsEverywhere,
  TEN_CHAR_INJECTIONS,
} from '../helpers/security-probes.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * What an attacker, or a careless log reader, could get out of the service, over real
 * HTTP on every database: no cookie (decisions §7), no cause in a 500 (spec Errors rule 2,
 * decisions §2), bounded headers and bodies, SQL and LIKE metacharacters taken literally
 * (decisions §6), and no password or password hash in any response or log line
 * (decisions §5), at trace level too. Slow clients cut off: request-timeouts.test.ts.
 */

describe('the test passwords', () => {
  it('are all listed for the run-wide log scan', () => {
    expect(TEST_PASSWORDS).toEqual(expect.arrayContaining(Object.values(PASSWORDS)))
  })
})

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`security on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const { call, exchanges } = recorder(suite)

    describe('no response sets a cookie', () => {
      it('on every route of the route table, with every method, on existing and unknown resources', async () => {
        const routes = routeTable(suite.server.app)
        expect(routes.map((route) => route.path)).toEqual(
          expect.arrayContaining([
            TODOS,
            `${TODOS}/:todoId`,
            MEMBERS,
            `${MEMBERS}/:memberId`,
            '/api/v1/openapi.json',
            '/api/docs',
            '/api/docs/*',
            '/health/live',
            '/health/ready',
            '/metrics',
          ]),
        )
        const docsPage = await call('GET', '/api/docs/')
        const assets = [...docsPage.text.matchAll(/(?:href|src)="\.\/(static\/[^"]+)"/g)].map(
          (match) => match[1] as string,
        )
        expect(assets).toContain('static/swagger-ui.css')

        /** The concrete paths of a route: its parameters replaced by existing and unknown ids. */
        const concrete = async (path: string): Promise<{ path: string; member?: MemberBody }[]> => {
          if (path.endsWith('/*'))
            return assets.map((asset) => ({ path: path.replace('*', asset) }))
          if (path.includes(':todoId')) {
            const { todoId } = await createTodo(call, 'cookie check')
            return [todoId, UNKNOWN_TODO_ID].map((id) => ({ path: path.replace(':todoId', id) }))
          }
          if (path.includes(':memberId')) {
            const member = await createMember(call)
            return [
              { path: path.replace(':memberId', member.memberId), member },
              {
                path: path.replace(':memberId', UNKNOWN_MEMBER_ID),
                member: { ...member, memberId: UNKNOWN_MEMBER_ID },
              },
            ]
          }
          return [{ path }]
        }
        const bodyFor = (method: string, route: string, member?: MemberBody): HttpOptions => {
          if (method === 'POST' && route === TODOS) return { body: { todoTitle: 'cookie check' } }
          if (method === 'POST' && route === MEMBERS) return { body: newMember() }
          if (method === 'PUT' && member) return { body: updateBody(member) }
          return {}
        }

        let requests = 0
        for (const route of routes) {
          for (const { path, member } of await concrete(route.path)) {
            // DELETE last, so the other methods still find the resource.
            for (const method of METHODS) {
              const response = await call(method, path, bodyFor(method, route.path, member))
              requests += 1
              const label = `${method} ${path} -> ${response.status}`
              expect(response.status, label).toBeLessThan(500)
              expect(response.headers['set-cookie'], label).toBeUndefined()
            }
          }
        }
        expect(requests).toBeGreaterThanOrEqual(routes.length * METHODS.length)
      })

      it('on the error answers and conditional answers', async () => {
        const todo = await createTodo(call, 'conditional')
        const member = await createMember(call)
        const item = `${MEMBERS}/${member.memberId}`
        const answers = [
          await call('GET', '/api/v1/nothing'),
          await call('GET', '/nothing/at/all'),
          await call('PATCH', TODOS),
          await call('GET', TODOS, { headers: { accept: 'application/xml' } }),
          await call('POST', TODOS, { headers: { 'content-type': 'text/plain' }, body: 'x' }),
          await call('POST', TODOS, { headers: { 'content-type': 'application/json' }, body: '{' }),
          await call('POST', TODOS, { body: { todoTitle: '' } }),
          await call('POST', MEMBERS, { body: newMember({ genderCode: '9' }) }),
          await call('GET', `${MEMBERS}?name=`),
          await call('GET', `${MEMBERS}?name=A&page=abc`),
          await call('GET', item, { headers: { 'if-none-match': '"1"' } }),
          await call('DELETE', item, { headers: { 'if-match': '"99"' } }),
          await call('PUT', `${TODOS}/${todo.todoId}`),
          await call('PUT', `${TODOS}/${todo.todoId}`),
          await call('POST', TODOS, { headers: { 'idempotency-key': `c-${RUN}` }, body: {} }),
          await call('POST', TODOS, {
            headers: { 'idempotency-key': `k-${RUN}` },
            body: { todoTitle: 'once' },
          }),
          await call('POST', TODOS, {
            headers: { 'idempotency-key': `k-${RUN}` },
            body: { todoTitle: 'once' },
          }),
          await call('POST', TODOS, {
            headers: { 'idempotency-key': `k-${RUN}` },
            body: { todoTitle: 'twice' },
          }),
          await call('GET', TODOS, { headers: { origin: 'https://evil.example' } }),
          await call('OPTIONS', TODOS, {
            headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
          }),
        ]
        expect(answers.map((answer) => answer.status)).toEqual([
          404, 404, 405, 406, 415, 400, 400, 400, 400, 400, 304, 412, 200, 409, 400, 201, 201, 422,
          200, 200,
        ])
        for (const answer of answers) expect(answer.headers['set-cookie']).toBeUndefined()
      })
    })

    describe('a 500 reveals no cause', () => {
      /** Renames `table` away (the service's queries then fail) while `work` runs. */
      async function withTableRenamed(table: string, work: () => Promise<void>): Promise<void> {
        await suite.database.exec(`alter table ${table} rename to ${table}_away`)
        try {
          await work()
        } finally {
          await suite.database.exec(`alter table ${table}_away rename to ${table}`)
        }
      }

      /** Exactly the bare ApiError, exactly the plain headers, nothing naming the cause. */
      function expectBareSystemError(response: HttpResponse, label: string, ja = false): void {
        expect(response.status, label).toBe(500)
        expect(response.headers['content-type'], label).toBe(JSON_TYPE)
        expect(
          Object.keys(response.headers).filter((name) => !PLAIN_HEADERS.includes(name)),
          label,
        ).toEqual([])
        expect(JSON.stringify(response.headers), label).not.toMatch(
          /away|todo|member|sqlite|postgres|select|stack/i,
        )
        if (label.startsWith('HEAD ')) {
          expect(response.text, label).toBe('')
          return
        }
        expect(response.text, label).toBe(
          JSON.stringify(ja ? DATA_ACCESS_ERROR_JA : DATA_ACCESS_ERROR),
        )
      }

      it('answers every Todo request on a broken table with the bare e.ex.fw.9002', async () => {
        const { todoId } = await createTodo(call, 'before the break')
        const item = `${TODOS}/${todoId}`
        await withTableRenamed('todo', async () => {
          const requests: [string, string, HttpOptions?][] = [
            ['GET', TODOS],
            ['HEAD', TODOS],
            ['POST', TODOS, { body: { todoTitle: 'into the void' } }],
            ['GET', item],
            ['HEAD', item],
            ['OPTIONS', item],
            ['PUT', item],
            ['DELETE', item],
          ]
          for (const [method, path, options] of requests) {
            expectBareSystemError(await call(method, path, options), `${method} ${path}`)
          }
          const ja = await call('GET', TODOS, { headers: { 'accept-language': 'ja' } })
          expectBareSystemError(ja, 'GET in Japanese', true)
        })
        const after = await call('GET', item)
        expect(after.status).toBe(200)
        expect(after.body).toMatchObject({ todoId, todoTitle: 'before the break' })
      })

      it('answers every Member request on a broken table with the bare e.ex.fw.9002', async () => {
        const member = await createMember(call, { firstName: 'Breakable' })
        const item = `${MEMBERS}/${member.memberId}`
        await withTableRenamed('member', async () => {
          const requests: [string, string, HttpOptions?][] = [
            ['GET', `${MEMBERS}?name=Breakable`],
            ['GET', `${MEMBERS}?name=Breakable&unpaged=true`],
            ['POST', MEMBERS, { body: newMember({}, { password: PASSWORDS.broken }) }],
            ['GET', item],
            ['HEAD', item],
            ['OPTIONS', item],
            ['PUT', item, { body: updateBody(member) }],
            ['DELETE', item],
          ]
          for (const [method, path, options] of requests) {
            expectBareSystemError(await call(method, path, options), `${method} ${path}`)
          }
        })
        // The credential insert fails after the member row was written (and rolled back).
        await withTableRenamed('member_credential', async () => {
          const created = await call('POST', MEMBERS, {
            body: newMember({ firstName: 'Breakable' }, { password: PASSWORDS.broken }),
          })
          expectBareSystemError(created, 'POST with the credential table away')
          expectBareSystemError(await call('GET', item), `GET ${item}`)
        })
        const after = await call('GET', `${MEMBERS}?name=Breakable&unpaged=true`)
        expect((after.body as MemberBody[]).map((found) => found.memberId)).toEqual([
          member.memberId,
        ])
      })

      it('logs the cause under the track id of the 500 instead', async () => {
        await withTableRenamed('todo', async () => {
          await call('GET', TODOS, { headers: { 'x-track': `broken-${RUN}` } })
        })
        const failure = suite.server.logs.find(
          (line) => line.track === `broken-${RUN}` && line.msg === 'request failed',
        )
        expect(JSON.stringify(failure?.err)).toMatch(/todo/)
      })
    })

    describe('header and body size', () => {
      it('answers a 20 KiB header with 431 and an ApiError, and serves the next request', async () => {
        const response = await call('GET', TODOS, {
          headers: { 'x-padding': 'a'.repeat(20 * 1024) },
        })
        expect(response.status).toBe(431)
        expect(response.headers['content-type']).toBe(JSON_TYPE)
        // Its own X-Track was never parsed; it still gets one, as every answer does.
        expect(response.headers['x-track']).toMatch(/^[0-9a-f-]{36}$/)
        expect(response.headers.connection).toBe('close')
        expect(response.body).toEqual(HEADER_TOO_LARGE)
        expect((await call('GET', TODOS)).status).toBe(200)
      })

      it('answers a body one byte over BODY_LIMIT with 413 e.ex.fw.7007, and serves the next request', async () => {
        const headers = { 'content-type': 'application/json' }
        const todo = await call('POST', TODOS, {
          headers,
          body: paddedJson({ todoTitle: 'big' }, 65_537),
        })
        expect(todo.status).toBe(413)
        expect(todo.headers['content-type']).toBe(JSON_TYPE)
        expect(todo.body).toEqual(BODY_TOO_LARGE)
        const member = await call('POST', MEMBERS, {
          headers,
          body: paddedJson(newMember(), 65_537),
        })
        expect(member.status).toBe(413)
        expect(member.body).toEqual(BODY_TOO_LARGE)
        const atTheLimit = await call('POST', TODOS, {
          headers,
          body: paddedJson({ todoTitle: 'just fits' }, 65_536),
        })
        expect(atTheLimit.status).toBe(201)
        expect((await call('GET', TODOS)).status).toBe(200)
      })

      it('refuses a declared Content-Length over BODY_LIMIT before any body byte arrives', async () => {
        const started = Date.now()
        const { responses } = await rawExchange(
          suite.server.baseUrl,
          `POST ${TODOS} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
            'Content-Length: 10000000\r\n\r\n',
          { responses: 1 },
        )
        const [answer] = responses
        expect(answer?.statusLine).toBe('HTTP/1.1 413 Payload Too Large')
        expect(answer?.json).toEqual(BODY_TOO_LARGE)
        expect(Date.now() - started).toBeLessThan(3000)
        expect((await call('GET', TODOS)).status).toBe(200)
      })
    })

    describe('SQL and LIKE metacharacters are taken literally', () => {
      /** Names holding the injections, and controls a wildcard or an escape would match. */
      const NAMES: readonly [string, string][] = [
        ['%Percent', 'Plain'],
        ['Under_score', '_Lead'],
        ['Back\\slash', '\\Lead'],
        ["O'Brien", "'Quote"],
        ['Say"Hi"', '"Double'],
        ["'; drop table member; --", 'Tables'],
        ["%' or '1'='1", 'Bobby'],
        ['Underxscore', 'Plainly'],
        ['Backslash', 'Ordinary'],
        ['Zed', 'Person'],
      ]
      const SEARCHES = [
        ...INJECTIONS,
        'Under_',
        'Back\\',
        "O'",
        'Say"',
        '%P',
        '%x',
        "'Q",
        '_L',
        '\\L',
        '%%',
        '__',
      ]
      const members: MemberBody[] = []
      const todos: { todoId: string; todoTitle: string }[] = []

      it('stores members with such names and finds exactly those whose name starts with the text', async () => {
        for (const [firstName, lastName] of NAMES) {
          members.push(await createMember(call, { firstName, lastName }))
        }
        for (const text of SEARCHES) {
          const expected = members
            .filter(
              (member) => member.firstName.startsWith(text) || member.lastName.startsWith(text),
            )
            .map((member) => member.memberId)
            .sort()
          const query = `name=${encodeURIComponent(text)}`
          const unpaged = await call('GET', `${MEMBERS}?${query}&unpaged=true`)
          expect(unpaged.status, text).toBe(200)
          const found = (unpaged.body as MemberBody[]).map((member) => member.memberId).sort()
          expect(found, `name=${text}`).toEqual(expected)
          const paged = await call('GET', `${MEMBERS}?${query}&size=100`)
          expect(paged.status, text).toBe(200)
          expect((paged.body as { totalElements: number }).totalElements, text).toBe(
            expected.length,
          )
        }
        // name=% finds the two names that start with %, not everyone.
        const percent = await call('GET', `${MEMBERS}?name=%25&unpaged=true`)
        expect((percent.body as MemberBody[]).map((member) => member.firstName).sort()).toEqual([
          "%' or '1'='1",
          '%Percent',
        ])
        const underscore = await call('GET', `${MEMBERS}?name=Under_&unpaged=true`)
        expect((underscore.body as MemberBody[]).map((member) => member.firstName)).toEqual([
          'Under_score',
        ])
      })

      it('answers such ids in paths with the resource 404, never a match or a 500', async () => {
        const member = await createMember(call)
        const { todoId } = await createTodo(call, 'has an id')
        for (const id of [...INJECTIONS, ...TEN_CHAR_INJECTIONS]) {
          const todo = `${TODOS}/${encodeURIComponent(id)}`
          for (const method of ['GET', 'PUT', 'DELETE', 'OPTIONS']) {
            const response = await call(method, todo)
            expect(response.status, `${method} ${id}`).toBe(404)
            expect(response.body, `${method} ${id}`).toEqual({
              code: 'e.ex.td.5001',
              message: `Specified todo not found. todo id : ${id}`,
            })
          }
          expect((await call('HEAD', todo)).status).toBe(404)

          const item = `${MEMBERS}/${encodeURIComponent(id)}`
          const notFound = {
            code: 'e.ex.mm.5001',
            message: `Specified member not found. member id : ${id}`,
          }
          for (const method of ['GET', 'DELETE', 'OPTIONS']) {
            const response = await call(method, item)
            expect(response.status, `${method} ${id}`).toBe(404)
            expect(response.body, `${method} ${id}`).toEqual(notFound)
          }
          const put = await call('PUT', item, { body: updateBody(member, { memberId: id }) })
          if (id.length === 10) {
            expect(put.status, `PUT ${id}`).toBe(404)
            expect(put.body, `PUT ${id}`).toEqual(notFound)
          } else {
            // The body's memberId breaks Size 10..10 before the lookup.
            expect(put.status, `PUT ${id}`).toBe(400)
            expect((put.body as { code: string }).code).toBe('e.ex.fw.7001')
          }
        }
        // Nothing was deleted or changed by any of them.
        expect((await call('GET', `${MEMBERS}/${member.memberId}`)).body).toEqual(member)
        expect((await call('GET', `${TODOS}/${todoId}`)).status).toBe(200)
      })

      it('stores such Todo titles and answers them verbatim', async () => {
        for (const todoTitle of [...INJECTIONS, ...TEN_CHAR_INJECTIONS]) {
          const created = await call('POST', TODOS, { body: { todoTitle } })
          expect(created.status, todoTitle).toBe(201)
          const todo = created.body as { todoId: string; todoTitle: string }
          expect(todo.todoTitle).toBe(todoTitle)
          const read = await call('GET', `${TODOS}/${todo.todoId}`)
          expect((read.body as { todoTitle: string }).todoTitle).toBe(todoTitle)
          todos.push(todo)
        }
        const list = (await call('GET', TODOS)).body as { todoId: string; todoTitle: string }[]
        for (const todo of todos) {
          expect(list.find((listed) => listed.todoId === todo.todoId)?.todoTitle).toBe(
            todo.todoTitle,
          )
        }
      })

      it('answers such sort, page and size values with 400 and an ApiError, never a 500', async () => {
        const values = [...INJECTIONS, ...TEN_CHAR_INJECTIONS, 'lastName desc; drop table member']
        for (const value of values) {
          const encoded = encodeURIComponent(value)
          const cases: [string, string][] = [
            [`sort=${encoded}`, 'e.ex.fw.7002'],
            [`sort=lastName,${encoded}`, 'e.ex.fw.7002'],
            [`sort=${encoded},desc`, 'e.ex.fw.7002'],
            [`page=${encoded}`, 'e.ex.fw.7006'],
            [`size=${encoded}`, 'e.ex.fw.7006'],
          ]
          for (const [query, code] of cases) {
            const response = await call('GET', `${MEMBERS}?name=Zed&${query}`)
            expect(response.status, query).toBe(400)
            expect(response.headers['content-type'], query).toBe(JSON_TYPE)
            const body = response.body as { code: string; message: string }
            expect(body.code, query).toBe(code)
            expect(typeof body.message).toBe('string')
          }
        }
      })

      it('takes them as Idempotency-Key values literally, or rejects them with 400', async () => {
        for (const value of [...INJECTIONS, ...TEN_CHAR_INJECTIONS]) {
          const key = `${value}${RUN}`
          const send = () =>
            call('POST', TODOS, {
              headers: { 'idempotency-key': key },
              body: { todoTitle: 'keyed' },
            })
          const first = await send()
          if (/^[\x21-\x7e]+$/.test(key)) {
            const again = await send()
            expect([first.status, again.status], key).toEqual([201, 201])
            expect(again.body).toEqual(first.body)
          } else {
            expect(first.status, key).toBe(400)
            expect((first.body as { code: string }).code).toBe('e.ex.fw.7006')
          }
        }
      })

      it('leaves every table in place with its rows', async () => {
        for (const table of ['todo', 'member', 'member_credential', 'idempotency_key']) {
          await suite.database.exec(`select count(*) from ${table}`)
        }
        for (const member of members) {
          expect((await call('GET', `${MEMBERS}/${member.memberId}`)).body).toEqual(member)
        }
        const listed = ((await call('GET', TODOS)).body as { todoId: string }[]).map(
          (todo) => todo.todoId,
        )
        expect(listed).toEqual(expect.arrayContaining(todos.map((todo) => todo.todoId)))
      })
    })

    describe('passwords', () => {
      it('appear in no answer and no log line, whatever the request', async () => {
        const before = exchanges.length
        await sendPasswordsEverywhere(call)
        const answers = exchanges.slice(before)
        for (const { request, response } of answers) {
          expect(secretsIn(response), request).toEqual([])
        }
        expect(secretsInLogs(suite.server.logs)).toEqual([])
      })
    })

    it('set no cookie and carried no password or hash in any answer or log line of this suite', () => {
      for (const { request, response } of exchanges) {
        expect(response.headers['set-cookie'], request).toBeUndefined()
        expect(secretsIn(response), request).toEqual([])
      }
      expect(suite.server.logs.length).toBeGreaterThan(0)
      expect(secretsInLogs(suite.server.logs)).toEqual([])
    })
  })

  describe.skipIf(!target.available)(`trace logging on ${target.name}`, () => {
    const suite = serverPerSuite(target, { LOG_LEVEL: 'trace' })
    const { call, exchanges } = recorder(suite)

    it('logs the SQL of the password writes but neither the password nor its hash', async () => {
      await sendPasswordsEverywhere(call)
      const queries = suite.server.logs.filter((line) => line.msg === 'query')
      // Trace is really on: the statement that stores the hash is there, without values.
      expect(
        queries.some((line) => String(line.sql).includes('insert into "member_credential"')),
      ).toBe(true)
      expect(secretsInLogs(suite.server.logs)).toEqual([])
      for (const { request, response } of exchanges) {
        expect(secretsIn(response), request).toEqual([])
      }
    })
  })
}
