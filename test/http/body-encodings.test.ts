import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { MALFORMED_BODY, UNSUPPORTED_MEDIA_TYPE } from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import { rawRequest } from '../helpers/raw-http.js'
import {
  countTodos,
  exchange,
  expectRawApiError,
  expectSuccess,
  postBody,
  RUN,
  storedTitles,
  TODOS,
  todoOf,
  uniqueTitle,
} from '../helpers/raw-todos.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * Request body encodings on the wire (decisions §2 "Request bodies are UTF-8 JSON"):
 * bytes that are not UTF-8, foreign charsets and content encodings are refused and store
 * nothing. Every request goes over a raw TCP connection (test/helpers/raw-http.ts).
 */

/** Byte sequences that are not UTF-8, each placed inside a JSON string. */
const INVALID_UTF8: readonly (readonly [string, readonly number[]])[] = [
  ['C3 28 (a lead byte without its continuation)', [0xc3, 0x28]],
  ['FF (never valid)', [0xff]],
  ['C0 AF (an overlong "/")', [0xc0, 0xaf]],
  ['ED A0 80 (an encoded lone surrogate)', [0xed, 0xa0, 0x80]],
  ['80 (a continuation byte alone)', [0x80]],
  ['E2 82 (a truncated sequence)', [0xe2, 0x82]],
  ['F4 90 80 80 (beyond U+10FFFF)', [0xf4, 0x90, 0x80, 0x80]],
]

/** `{"todoTitle":"<title><bytes>x"}` with the bytes as given. */
function titleWithBytes(title: string, bytes: readonly number[]): Buffer {
  return Buffer.concat([
    Buffer.from(`{"todoTitle":"${title}`),
    Buffer.from(bytes),
    Buffer.from('x"}'),
  ])
}

const FOREIGN_CHARSETS = [
  'application/json; charset=iso-8859-1',
  'application/json; charset=ISO-8859-1',
  'application/json; charset="iso-8859-1"',
  'application/json;charset=windows-1252',
  'application/json; charset=utf-16',
  'application/json; charset=UTF-16LE',
  'application/json; charset=Shift_JIS',
] as const

const UTF8_CHARSETS = [
  'application/json; charset=UTF-8',
  'application/json; charset="utf-8"',
  'application/json;charset=utf-8',
  'Application/JSON; Charset=Utf-8',
] as const

const FOREIGN_ENCODINGS = [
  'gzip',
  'deflate',
  'br',
  'compress',
  'x-unknown',
  'gzip, identity',
] as const

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`request body encodings on ${target.name}`, () => {
    const suite = serverPerSuite(target)

    /** Sends `bytes`, expects `status` and `body`, and checks that nothing was stored. */
    async function expectRefused(
      bytes: Buffer,
      title: string,
      status: number,
      body: { readonly code: string; readonly message: string },
    ): Promise<void> {
      const before = await countTodos(suite.database)
      const exchanged = await exchange(suite, bytes, { responses: 1 })
      expectRawApiError(exchanged, [status], body)
      expect(await countTodos(suite.database)).toBe(before)
      const stored = await storedTitles(suite.database)
      expect(stored.filter((stored) => stored.startsWith(title))).toEqual([])
    }

    it('Transfer-Encoding gzip, chunked (a transfer coding Node does not undo) -> 415, nothing stored', async () => {
      const title = uniqueTitle('te-gzip')
      const body = JSON.stringify({ todoTitle: title })
      const bytes = Buffer.concat([
        rawRequest('POST', TODOS, {
          headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'gzip, chunked' },
        }),
        Buffer.from(`${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`),
      ])
      await expectRefused(bytes, title, 415, UNSUPPORTED_MEDIA_TYPE)
    })

    it.each(INVALID_UTF8)(
      'invalid UTF-8 %s in a string -> 400 7003, nothing stored',
      async (_label, bytes) => {
        const title = uniqueTitle('utf8')
        await expectRefused(postBody(titleWithBytes(title, bytes)), title, 400, MALFORMED_BODY)
      },
    )

    it('invalid UTF-8 in a field name -> 400 7003 (a format error, not an unknown field)', async () => {
      const title = uniqueTitle('utf8-key')
      const body = Buffer.concat([
        Buffer.from('{"todo'),
        Buffer.from([0xff]),
        Buffer.from(`Title":"${title}","todoTitle":"${title}"}`),
      ])
      await expectRefused(postBody(body), title, 400, MALFORMED_BODY)
    })

    it('valid multi-byte UTF-8 is stored exactly', async () => {
      const title = `Grüße 日本 😀 ${RUN}`
      const exchanged = await exchange(suite, postBody(JSON.stringify({ todoTitle: title })), {
        responses: 1,
      })
      expectSuccess(exchanged.responses[0], 201)
      expect(todoOf(exchanged.responses[0]).todoTitle).toBe(title)
      expect(await storedTitles(suite.database)).toContain(title)
    })

    it.each([
      ...FOREIGN_CHARSETS.map((value) => ['Content-Type', value]),
      ...FOREIGN_ENCODINGS.map((value) => ['Content-Encoding', value]),
    ])('%s: %s on a plain JSON body -> 415 6003, nothing stored', async (header, value) => {
      const title = uniqueTitle('unreadable')
      const bytes = postBody(JSON.stringify({ todoTitle: title }), { [header]: value })
      await expectRefused(bytes, title, 415, UNSUPPORTED_MEDIA_TYPE)
    })

    it('a Latin-1 body declared as iso-8859-1 -> 415 (the media type before the bytes)', async () => {
      const title = uniqueTitle('latin1')
      const body = Buffer.from(`{"todoTitle":"${title}\u00e9"}`, 'latin1')
      const bytes = postBody(body, { 'Content-Type': 'application/json; charset=iso-8859-1' })
      await expectRefused(bytes, title, 415, UNSUPPORTED_MEDIA_TYPE)
    })

    it.each(UTF8_CHARSETS)('Content-Type %s -> 201', async (contentType) => {
      const title = uniqueTitle('utf8-ok')
      const exchanged = await exchange(
        suite,
        postBody(JSON.stringify({ todoTitle: title }), { 'Content-Type': contentType }),
        { responses: 1 },
      )
      expectSuccess(exchanged.responses[0], 201)
      expect(await storedTitles(suite.database)).toContain(title)
    })

    it('Content-Encoding gzip on a gzipped JSON body -> 415 6003, nothing stored', async () => {
      const title = uniqueTitle('gzipped')
      const bytes = postBody(gzipSync(JSON.stringify({ todoTitle: title })), {
        'Content-Encoding': 'gzip',
      })
      await expectRefused(bytes, title, 415, UNSUPPORTED_MEDIA_TYPE)
    })

    it('Content-Encoding identity -> 201', async () => {
      const title = uniqueTitle('identity')
      const exchanged = await exchange(
        suite,
        postBody(JSON.stringify({ todoTitle: title }), { 'Content-Encoding': 'identity' }),
        { responses: 1 },
      )
      expectSuccess(exchanged.responses[0], 201)
      expect(await storedTitles(suite.database)).toContain(title)
    })
  })
}
