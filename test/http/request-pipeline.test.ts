import { describe, expect, it } from 'vitest'
import { JSON_TYPE, NOT_FOUND, PARAMETER_TYPE_MISMATCH } from '../helpers/api-errors.js'
import { SQLITE_TARGET } from '../helpers/databases.js'
import type { HttpResponse } from '../helpers/http.js'
import { rawExchange } from '../helpers/raw-http.js'
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
 * The request pipeline shared by every endpoint (decisions §1, §2, §3, §7), observed
 * over real HTTP on the Todo resource: Accept-Language, X-Track, Content-Type and the
 * Location of a created resource. Its error answers: test/errors/pipeline-errors.test.ts.
 */

describe('request pipeline (SQLite)', () => {
  const suite = serverPerSuite(SQLITE_TARGET)

  describe('Accept-Language chooses the message language', () => {
    it.each(['ja', 'ja-JP', 'en;q=0.5, ja;q=0.8'])('%s -> Japanese', async (language) => {
      const response = await suite.server.request('GET', '/api/v1/nothing', {
        headers: { 'accept-language': language },
      })
      expectJson(response, 404, { code: 'e.ex.fw.5001', message: 'リソースが見つかりません。' })
    })

    it.each(['fr', '*', 'en-US', undefined, 'ja;q=0, en'])('%s -> English', async (language) => {
      const headers: Record<string, string> =
        language === undefined ? {} : { 'accept-language': language }
      const response = await suite.server.request('GET', '/api/v1/nothing', { headers })
      expectJson(response, 404, NOT_FOUND)
    })
  })

  describe('X-Track', () => {
    it('echoes a well-formed X-Track', async () => {
      const response = await suite.server.request('GET', TODOS, {
        headers: { 'x-track': 'abc-123.X_y' },
      })
      expect(response.status).toBe(200)
      expect(response.headers['x-track']).toBe('abc-123.X_y')
    })

    it.each(['has space', 'a'.repeat(65), '<script>'])(
      'replaces a malformed X-Track %j with a generated id',
      async (given) => {
        const response = await suite.server.request('GET', TODOS, { headers: { 'x-track': given } })
        expect(response.status).toBe(200)
        const track = response.headers['x-track']
        expect(track).toMatch(TRACK_ID)
        expect(track).not.toBe(given)
      },
    )

    it('generates an id when the request has none', async () => {
      const response = await suite.server.request('GET', TODOS)
      expect(response.status).toBe(200)
      expect(response.headers['x-track']).toMatch(TRACK_ID)
    })

    it('is on 200, 201, 204, 400 and 404 responses', async () => {
      const headers = { 'x-track': 'track-every-status' }
      const created = await suite.server.request('POST', TODOS, {
        headers,
        body: { todoTitle: 't' },
      })
      const { todoId } = created.body as { todoId: string }
      const responses = [
        await suite.server.request('GET', TODOS, { headers }),
        created,
        await suite.server.request('DELETE', `${TODOS}/${todoId}`, { headers }),
        await suite.server.request('POST', TODOS, { headers, body: {} }),
        await suite.server.request('GET', '/api/v1/nothing', { headers }),
      ]
      expect(responses.map((response) => response.status)).toEqual([200, 201, 204, 400, 404])
      for (const response of responses)
        expect(response.headers['x-track']).toBe('track-every-status')
    })

    it('is written on the request log line with the route and status', async () => {
      const track = `log-${Date.now()}`
      const response = await suite.server.request('GET', TODOS, { headers: { 'x-track': track } })
      expect(response.status).toBe(200)
      const line = await findLog(suite.server, (entry) => entry.track === track)
      expect(line).toMatchObject({ track, route: '/api/v1/todos', status: 200 })
    })
  })

  it('never sets a cookie (200, 201, 204, 400, 404, 405)', async () => {
    const created = await createTodo(suite.server)
    const { todoId } = created.body as { todoId: string }
    const responses = [
      await suite.server.request('GET', TODOS),
      created,
      await suite.server.request('DELETE', `${TODOS}/${todoId}`),
      await suite.server.request('POST', TODOS, { body: {} }),
      await suite.server.request('GET', '/api/v1/nothing'),
      await suite.server.request('PATCH', TODOS),
    ]
    expect(responses.map((response) => response.status)).toEqual([200, 201, 204, 400, 404, 405])
    for (const response of responses) expect(response.headers['set-cookie']).toBeUndefined()
  })

  describe('Content-Type', () => {
    it('is exactly application/json;charset=UTF-8 on every error (404, 405, 406, 415, 413, 400)', async () => {
      const responses = [
        await suite.server.request('GET', '/api/v1/nothing'),
        await suite.server.request('PATCH', TODOS),
        await suite.server.request('GET', TODOS, { headers: { accept: 'application/xml' } }),
        await suite.server.request('POST', TODOS, {
          headers: { 'content-type': 'text/plain' },
          body: 'x',
        }),
        await postJsonText(suite.server, paddedTodo('a', 65_537)),
        await postJsonText(suite.server, '{'),
      ]
      expect(responses.map((response) => response.status)).toEqual([404, 405, 406, 415, 413, 400])
      for (const response of responses) {
        expect(response.headers['content-type']).toBe(JSON_TYPE)
        expect(response.body).toMatchObject({ code: expect.stringMatching(/^e\.ex\.fw\.\d{4}$/) })
      }
    })

    it('is absent on 204 and 304, whose bodies are empty', async () => {
      const created = await createTodo(suite.server)
      const { todoId } = created.body as { todoId: string }
      const notModified = await suite.server.request('GET', `${TODOS}/${todoId}`, {
        headers: { 'if-none-match': String(created.headers.etag) },
      })
      const noContent = await suite.server.request('DELETE', `${TODOS}/${todoId}`)
      expect([notModified.status, noContent.status]).toEqual([304, 204])
      for (const response of [notModified, noContent]) {
        expect(response.headers['content-type']).toBeUndefined()
        expect(response.text).toBe('')
      }
    })
  })

  it('answers a malformed header with 400 and an e.ex.fw.7006 JSON body naming it', async () => {
    const { responses } = await rawExchange(
      suite.server.baseUrl,
      'GET /api/v1/todos HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
    )
    const [answer] = responses
    expect(answer?.statusLine.startsWith('HTTP/1.1 400')).toBe(true)
    expect(answer?.headers['content-type']).toBe(JSON_TYPE)
    expect(answer?.json).toEqual({ ...PARAMETER_TYPE_MISMATCH, target: 'header' })
  })

  it('answers headers over the size limit with 431 and an e.ex.fw.7006 JSON body', async () => {
    const { responses } = await rawExchange(
      suite.server.baseUrl,
      `GET /api/v1/todos HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    )
    const [answer] = responses
    expect(answer?.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large')
    expect(answer?.headers['content-type']).toBe(JSON_TYPE)
    expect(answer?.json).toEqual({
      code: 'e.ex.fw.7006',
      message: 'Type mismatch error occurred in request parameter or header or path variable.',
    })
  })

  describe('Location of a created Todo', () => {
    const todoIdOf = (response: HttpResponse) => (response.body as { todoId: string }).todoId

    it('is the request URL plus the new id', async () => {
      const response = await createTodo(suite.server)
      expect(response.headers.location).toBe(
        `${suite.server.baseUrl}${TODOS}/${todoIdOf(response)}`,
      )
    })

    it('uses the request Host header', async () => {
      const response = await suite.server.request('POST', TODOS, {
        headers: { host: 'api.example.com:9000' },
        body: { todoTitle: 'host' },
      })
      expect(response.status).toBe(201)
      expect(response.headers.location).toBe(
        `http://api.example.com:9000${TODOS}/${todoIdOf(response)}`,
      )
    })

    const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'public.example.com' }

    it('ignores X-Forwarded-Proto/-Host on a suite.server that trusts no proxy', async () => {
      const response = await suite.server.request('POST', TODOS, {
        headers: forwarded,
        body: { todoTitle: 'proxy' },
      })
      expect(response.status).toBe(201)
      expect(response.headers.location).toBe(
        `${suite.server.baseUrl}${TODOS}/${todoIdOf(response)}`,
      )
    })

    it('honours X-Forwarded-Proto/-Host with TRUST_PROXY=true', async () => {
      await withServer({ TRUST_PROXY: 'true' }, async (proxied) => {
        const response = await proxied.request('POST', TODOS, {
          headers: forwarded,
          body: { todoTitle: 'proxy' },
        })
        expect(response.status).toBe(201)
        expect(response.headers.location).toBe(
          `https://public.example.com${TODOS}/${todoIdOf(response)}`,
        )
      })
    })
  })
})
