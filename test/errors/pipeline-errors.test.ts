import { describe, expect, it } from 'vitest'
import type { ApiErrorBody } from '../../src/api/errors/api-error.js'
import {
  BODY_TOO_LARGE,
  bodyValidation,
  JSON_TYPE,
  MALFORMED_BODY,
  METHOD_NOT_SUPPORTED,
  NOT_FOUND,
  UNSUPPORTED_MEDIA_TYPE,
  unknownField,
} from '../helpers/api-errors.js'
import { DATABASES, SQLITE_TARGET } from '../helpers/databases.js'
import { COLLECTION_ALLOW, ITEM_ALLOW } from '../helpers/http.js'
import { paddedTodo, TODOS, TRACK_ID } from '../helpers/raw-todos.js'
import {
  createTodo,
  expectJson,
  findLog,
  postJsonText,
  withServer,
} from '../helpers/request-pipeline.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * The error answers of the request pipeline shared by every endpoint (decisions §1, §2,
 * §3, §7), observed over real HTTP on the Todo resource: 404, 405, 406, 415, 413, the
 * 400s of bodies and their fields, and the 500s of a row or a table the service cannot
 * read. The headers of every answer: test/http/request-pipeline.test.ts.
 */

const NOT_ACCEPTABLE = {
  code: 'e.ex.fw.6002',
  message: 'Specified representation format not supported.',
}

const NOT_NULL_TITLE = {
  code: 'NotNull',
  message: 'todoTitle may not be null.',
  target: 'todoTitle',
}
const SIZE_TITLE = {
  code: 'Size',
  message: 'todoTitle size must be between 1 and 30.',
  target: 'todoTitle',
}

const typeMismatch = (target?: string): ApiErrorBody => ({
  code: 'e.ex.fw.7005',
  message: 'Type mismatch error occurred in JSON field.',
  ...(target !== undefined && { target }),
})

describe('request pipeline (SQLite)', () => {
  const suite = serverPerSuite(SQLITE_TARGET)

  describe('404 for a path that names no resource', () => {
    it('answers e.ex.fw.5001 for an unknown path', async () => {
      expectJson(await suite.server.request('GET', '/api/v1/nothing'), 404, NOT_FOUND)
    })

    it('localizes the 404 message with Accept-Language ja', async () => {
      const response = await suite.server.request('GET', '/api/v1/nothing', {
        headers: { 'accept-language': 'ja' },
      })
      expectJson(response, 404, { code: 'e.ex.fw.5001', message: 'リソースが見つかりません。' })
    })

    it.each([`${TODOS}/`, `${TODOS}/some-id/`])(
      'answers e.ex.fw.5001 for the trailing-slash path %s',
      async (path) => {
        expectJson(await suite.server.request('GET', path), 404, NOT_FOUND)
      },
    )

    it('answers e.ex.fw.5001 for a path that cannot be decoded and names no resource', async () => {
      expectJson(await suite.server.request('GET', '/api/v1/%E0%A4%A'), 404, NOT_FOUND)
    })

    it("answers the todo's 404 for an id that cannot be decoded (decisions §2)", async () => {
      const response = await suite.server.request('GET', `${TODOS}/%E0%A4%A`)
      expect(response.status).toBe(404)
      expect((response.body as ApiErrorBody).code).toBe('e.ex.td.5001')
    })
  })

  describe('405 for a known path with a method it does not serve', () => {
    it.each(['PATCH', 'DELETE', 'PUT'])('%s /api/v1/todos -> 405 with Allow', async (method) => {
      const response = await suite.server.request(method, TODOS)
      expectJson(response, 405, METHOD_NOT_SUPPORTED)
      expect(response.headers.allow).toBe(COLLECTION_ALLOW)
    })

    it.each(['PATCH', 'POST'])('%s /api/v1/todos/{id} -> 405 with Allow', async (method) => {
      const response = await suite.server.request(method, `${TODOS}/anything`)
      expectJson(response, 405, METHOD_NOT_SUPPORTED)
      expect(response.headers.allow).toBe(ITEM_ALLOW)
    })
  })

  describe('406 for an Accept that admits no JSON', () => {
    it.each([
      'application/xml',
      'application/json;q=0',
      'application/json;charset=UTF-8;q=0',
      'text/html, application/xml;charset=UTF-8',
    ])('Accept %s -> 406 e.ex.fw.6002 with a JSON body', async (accept) => {
      const response = await suite.server.request('GET', TODOS, { headers: { accept } })
      expectJson(response, 406, NOT_ACCEPTABLE)
    })

    // Java and .NET clients send the charset; any parameter of a JSON range is acceptable.
    it.each([
      '*/*',
      'application/*',
      'text/html, application/json;q=0.5',
      'application/json;charset=UTF-8',
      'application/json; charset=utf-8',
      'application/json;charset="UTF-8";q=0.9',
      'application/json;version=1, text/plain',
      'application/*;charset=UTF-8;q=0.1',
      '*/*;q=0.8;level=1',
    ])('Accept %s admits JSON -> 200', async (accept) => {
      const response = await suite.server.request('GET', TODOS, { headers: { accept } })
      expect(response.status).toBe(200)
      expect(response.headers['content-type']).toBe(JSON_TYPE)
      expect(Array.isArray(response.body)).toBe(true)
    })

    it('an unknown path wins over Accept: 404', async () => {
      const response = await suite.server.request('GET', '/api/v1/nothing', {
        headers: { accept: 'application/xml' },
      })
      expectJson(response, 404, NOT_FOUND)
    })

    it('a wrong method wins over Accept: 405', async () => {
      const response = await suite.server.request('PATCH', TODOS, {
        headers: { accept: 'application/xml' },
      })
      expectJson(response, 405, METHOD_NOT_SUPPORTED)
      expect(response.headers.allow).toBe(COLLECTION_ALLOW)
    })
  })

  describe('415 for a body that is not application/json', () => {
    it.each(['text/plain', 'application/x-www-form-urlencoded'])(
      'Content-Type %s -> 415 e.ex.fw.6003',
      async (contentType) => {
        const response = await suite.server.request('POST', TODOS, {
          headers: { 'content-type': contentType },
          body: '{"todoTitle":"a"}',
        })
        expectJson(response, 415, UNSUPPORTED_MEDIA_TYPE)
      },
    )

    it('accepts application/json in any letter case and with parameters', async () => {
      const response = await suite.server.request('POST', TODOS, {
        headers: { 'content-type': 'Application/JSON; charset=utf-8' },
        body: '{"todoTitle":"Case"}',
      })
      expect(response.status).toBe(201)
      expect(response.headers['content-type']).toBe(JSON_TYPE)
      expect(response.body).toMatchObject({ todoTitle: 'Case', finished: false })
    })

    it('the media type wins over the body size: 70000 bytes of text/plain -> 415', async () => {
      const response = await suite.server.request('POST', TODOS, {
        headers: { 'content-type': 'text/plain' },
        body: 'x'.repeat(70_000),
      })
      expectJson(response, 415, UNSUPPORTED_MEDIA_TYPE)
    })

    it('Accept wins over the media type: Accept xml + text/plain -> 406', async () => {
      const response = await suite.server.request('POST', TODOS, {
        headers: { accept: 'application/xml', 'content-type': 'text/plain' },
        body: 'hello',
      })
      expectJson(response, 406, NOT_ACCEPTABLE)
    })
  })

  describe('413 for a body over the limit', () => {
    it('rejects 65537 bytes with e.ex.fw.7007', async () => {
      expectJson(await postJsonText(suite.server, paddedTodo('a', 65_537)), 413, BODY_TOO_LARGE)
    })

    it('accepts exactly 65536 bytes', async () => {
      const response = await postJsonText(suite.server, paddedTodo('a', 65_536))
      expect(response.status).toBe(201)
      expect(response.headers['content-type']).toBe(JSON_TYPE)
      expect(response.body).toMatchObject({ todoTitle: 'a', finished: false })
    })

    it('honours BODY_LIMIT: 100 bytes accepted, 101 rejected', async () => {
      await withServer({ BODY_LIMIT: '100' }, async (small) => {
        expectJson(await postJsonText(small, paddedTodo('a', 101)), 413, BODY_TOO_LARGE)
        const accepted = await postJsonText(small, paddedTodo('a', 100))
        expect(accepted.status).toBe(201)
        expect(accepted.headers['content-type']).toBe(JSON_TYPE)
      })
    })
  })

  describe('400 e.ex.fw.7003 for a body that is not JSON', () => {
    it('malformed JSON', async () => {
      expectJson(await postJsonText(suite.server, '{"todoTitle":'), 400, MALFORMED_BODY)
    })

    it('an empty body with Content-Type application/json', async () => {
      expectJson(await postJsonText(suite.server, ''), 400, MALFORMED_BODY)
    })

    it('no body and no Content-Type at all', async () => {
      expectJson(await suite.server.request('POST', TODOS), 400, MALFORMED_BODY)
    })
  })

  describe('400 e.ex.fw.7004 for a field the resource does not have', () => {
    it('names the unknown field as target', async () => {
      const response = await suite.server.request('POST', TODOS, {
        body: { todoTitle: 'x', foo: 1 },
      })
      expectJson(response, 400, unknownField('foo'))
    })

    it('treats "__proto__" as an unknown field', async () => {
      const response = await postJsonText(suite.server, '{"todoTitle":"x","__proto__":{"a":1}}')
      expectJson(response, 400, unknownField('__proto__'))
    })

    it('an unknown field wins over a type error', async () => {
      const response = await suite.server.request('POST', TODOS, { body: { todoTitle: 5, foo: 1 } })
      expectJson(response, 400, unknownField('foo'))
    })
  })

  describe('400 e.ex.fw.7005 for a value of the wrong JSON type or format', () => {
    it.each([
      ['todoTitle', 5],
      ['todoTitle', true],
      ['todoTitle', {}],
      ['finished', 'yes'],
      ['finished', 1],
      ['createdAt', 'yesterday'],
      ['createdAt', 5],
    ])('%s = %j -> target %s', async (field, value) => {
      const body = { todoTitle: 'x', [field]: value }
      expectJson(await suite.server.request('POST', TODOS, { body }), 400, typeMismatch(field))
    })

    it('a title containing U+0000', async () => {
      const response = await postJsonText(suite.server, '{"todoTitle":"a\\u0000b"}')
      expectJson(response, 400, typeMismatch('todoTitle'))
    })

    it('a title containing a lone surrogate', async () => {
      const response = await postJsonText(suite.server, '{"todoTitle":"a\\ud800b"}')
      expectJson(response, 400, typeMismatch('todoTitle'))
    })

    it.each(['null', '[]', '"str"'])('a body of %s -> 7005 without target', async (text) => {
      expectJson(await postJsonText(suite.server, text), 400, typeMismatch())
    })

    it('a type mismatch wins over validation', async () => {
      const response = await suite.server.request('POST', TODOS, {
        body: { todoTitle: null, finished: 'yes' },
      })
      expectJson(response, 400, typeMismatch('finished'))
    })
  })

  describe('400 e.ex.fw.7001 for a body that breaks a constraint', () => {
    it.each([
      ['absent', {}],
      ['null', { todoTitle: null }],
    ])('todoTitle %s -> NotNull', async (_case, body) => {
      const response = await suite.server.request('POST', TODOS, { body })
      expectJson(response, 400, bodyValidation(NOT_NULL_TITLE))
    })

    it.each([
      ['empty', ''],
      ['31 characters', 'a'.repeat(31)],
    ])('todoTitle %s -> Size', async (_case, todoTitle) => {
      const response = await suite.server.request('POST', TODOS, { body: { todoTitle } })
      expectJson(response, 400, bodyValidation(SIZE_TITLE))
    })

    it('counts characters, not UTF-16 units: 30 emoji are accepted', async () => {
      const todoTitle = '😀'.repeat(30)
      const response = await suite.server.request('POST', TODOS, { body: { todoTitle } })
      expect(response.status).toBe(201)
      expect(response.headers['content-type']).toBe(JSON_TYPE)
      expect(response.body).toMatchObject({ todoTitle })
    })

    it('localizes the message and the details in Japanese', async () => {
      const headers = { 'accept-language': 'ja-JP' }
      const message = 'リクエストボディの項目で入力チェックエラーが発生しました。'
      const notNull = await suite.server.request('POST', TODOS, { headers, body: {} })
      expectJson(notNull, 400, {
        code: 'e.ex.fw.7001',
        message,
        details: [
          { code: 'NotNull', message: 'todoTitleはnullにできません。', target: 'todoTitle' },
        ],
      })
      const size = await suite.server.request('POST', TODOS, { headers, body: { todoTitle: '' } })
      expectJson(size, 400, {
        code: 'e.ex.fw.7001',
        message,
        details: [
          {
            code: 'Size',
            message: 'todoTitleのサイズは1から30の間にしてください。',
            target: 'todoTitle',
          },
        ],
      })
    })
  })
})

describe('system error e.ex.fw.9001 (SQLite)', () => {
  const suite = serverPerSuite(SQLITE_TARGET)

  it('answers 500 e.ex.fw.9001 for a row the service cannot read', async () => {
    await suite.database.exec(
      "insert into todo (todo_id, todo_title, finished, created_at) values ('bad','x',0,'not a date')",
    )
    const response = await suite.server.request('GET', `${TODOS}/bad`)
    expectJson(response, 500, { code: 'e.ex.fw.9001', message: 'System error occurred.' })
    // The ETag was set before the answer failed: it named an answer that was never sent.
    expect(response.headers.etag).toBeUndefined()
  })
})

const MISSING_TABLE_MESSAGE = {
  sqlite: 'no such table',
  postgres: 'relation "todo" does not exist',
} as const

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`data-access failure on ${target.name}`, () => {
    const suite = serverPerSuite(target)

    it('answers 500 e.ex.fw.9002 without the cause and logs the cause under the track id', async () => {
      const created = (await createTodo(suite.server)).body as { todoId: string }
      await suite.database.exec('drop table todo')

      const response = await suite.server.request('GET', TODOS)
      expectJson(response, 500, { code: 'e.ex.fw.9002', message: 'System error occurred.' })
      // A lookup by id runs past Kysely (sqlite/direct-reads.ts): its failure is translated alike.
      const lookup = await suite.server.request('GET', `${TODOS}/${created.todoId}`)
      expectJson(lookup, 500, { code: 'e.ex.fw.9002', message: 'System error occurred.' })

      const track = response.headers['x-track']
      expect(track).toMatch(TRACK_ID)
      const line = await findLog(
        suite.server,
        (entry) => entry.track === track && entry.level === 50,
      )
      const err = line?.err as { message?: string } | undefined
      expect(err?.message).toContain(MISSING_TABLE_MESSAGE[target.name])
    })
  })
}
