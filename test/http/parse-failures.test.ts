import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MALFORMED_BODY, PARAMETER_TYPE_MISMATCH } from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import {
  describeExchange,
  exchange,
  expectRawApiError,
  expectSuccess,
  get,
  pipelined,
  TODOS,
} from '../helpers/raw-todos.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * Bytes Node's parser refuses are answered by the part at fault (decisions §2): a request
 * line or a header is 400 e.ex.fw.7006 whose target names it (the word of the request line,
 * the header's name when it can be read, else `header`), a chunked body's framing 400
 * e.ex.fw.7003. So 7003, the body's code, never answers a request that has no body.
 * Raw TCP, byte for byte; each refused request ends its connection.
 */

const HEAD = 'GET /api/v1/todos HTTP/1.1\r\nHost: x\r\n'
const CHUNKED = 'POST /api/v1/todos HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n'

/** [what, bytes, target] of requests without a body whose request line or header is refused. */
const REFUSED_HEADS: readonly (readonly [string, string, string])[] = [
  ['a method that is no token', 'G(T /api/v1/todos HTTP/1.1\r\nHost: x\r\n\r\n', 'method'],
  ['a target of no form', 'GET foo HTTP/1.1\r\nHost: x\r\n\r\n', 'request-target'],
  ['a target with a space', 'GET /api/v1/to dos HTTP/1.1\r\nHost: x\r\n\r\n', 'HTTP-version'],
  ['a protocol that is not HTTP', 'GET /api/v1/todos HTTX/1.1\r\nHost: x\r\n\r\n', 'HTTP-version'],
  [
    'a minor version that is no digit',
    'GET /api/v1/todos HTTP/1.x\r\nHost: x\r\n\r\n',
    'HTTP-version',
  ],
  [
    'a word after the version',
    'GET /api/v1/todos HTTP/1.1 extra\r\nHost: x\r\n\r\n',
    'HTTP-version',
  ],
  ['a request line ending in LF alone', 'GET /api/v1/todos HTTP/1.1\nHost: x\n\n', 'HTTP-version'],
  ['a header name with a space', `${HEAD}Bad Name: 1\r\n\r\n`, 'header'],
  ['a header line without a colon', `${HEAD}Bad\r\n\r\n`, 'header'],
  ['a header name with a parenthesis', `${HEAD}X(y): 1\r\n\r\n`, 'header'],
  ['an empty header name', `${HEAD}: 1\r\n\r\n`, 'header'],
  ['whitespace before the colon', 'GET /api/v1/todos HTTP/1.1\r\nHost : x\r\n\r\n', 'header'],
  ['a NUL in a value', `${HEAD}X-Test: a\0b\r\n\r\n`, 'X-Test'],
  ['a CR alone in a value', `${HEAD}X-Test: a\rb\r\n\r\n`, 'X-Test'],
  ['a header line ending in LF alone', `${HEAD}X-Test: a\nX-More: b\r\n\r\n`, 'X-Test'],
  ['a CR alone where a header line begins', `${HEAD}\r: x\r\n\r\n`, 'header'],
  ['a folded value (obs-fold)', `${HEAD}X-Test: a\r\n b\r\n\r\n`, 'header'],
  ['a Content-Length that is no number', `${HEAD}Content-Length: abc\r\n\r\n`, 'Content-Length'],
  [
    'two Content-Length headers',
    `${HEAD}Content-Length: 0\r\nContent-Length: 1\r\n\r\n`,
    'Content-Length',
  ],
  [
    'Transfer-Encoding with Content-Length',
    `${HEAD}Content-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    'Transfer-Encoding',
  ],
  [
    'a Transfer-Encoding not ending in chunked',
    `${HEAD}Transfer-Encoding: chunked, gzip\r\n\r\n`,
    'Transfer-Encoding',
  ],
]

/** [what, bytes] of requests whose chunked body's framing is refused. */
const REFUSED_BODIES: readonly (readonly [string, string])[] = [
  ['an invalid chunk size', `${CHUNKED}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
  [
    'a control character in a chunk extension',
    `${CHUNKED}Transfer-Encoding: chunked\r\n\r\n2;\x01\r\n{}\r\n0\r\n\r\n`,
  ],
  [
    'a chunk longer than its size',
    `${CHUNKED}Transfer-Encoding: chunked\r\n\r\n1\r\n{}\r\n0\r\n\r\n`,
  ],
]

/** A 400 e.ex.fw.7006 naming `target`, as the first answer. */
function expectRefusedPart(exchanged: Awaited<ReturnType<typeof exchange>>, target: string): void {
  expectRawApiError(exchanged, [400], { code: /^e\.ex\.fw\.7006$/ })
  expect(exchanged.responses.at(-1)?.json, describeExchange(exchanged)).toEqual({
    ...PARAMETER_TYPE_MISMATCH,
    target,
  })
}

/** Bytes of a header line that may be anything but a line end. */
const LINE_BYTES = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...' :()\t\0\r\x7f"@,;=/'.split('')),
    fc.constantFrom(...'aZ9-_'.split('')),
    fc.integer({ min: 0x80, max: 0xff }).map((code) => String.fromCharCode(code)),
  ),
  maxLength: 24,
})

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`refused request bytes on ${target.name}`, () => {
    const suite = serverPerSuite(target)

    it.each(REFUSED_HEADS)('%s -> 400 e.ex.fw.7006 naming it', async (_what, bytes, named) => {
      expectRefusedPart(await exchange(suite, bytes), named)
    })

    it.each(REFUSED_BODIES)('%s -> 400 e.ex.fw.7003', async (_what, bytes) => {
      expectRawApiError(await exchange(suite, bytes), [400], MALFORMED_BODY)
    })

    it('answers the requests before a refused one, then the refusal by its part', async () => {
      for (const refused of [`${HEAD}Bad Name: 1\r\n\r\n`, `${HEAD}\r: x\r\n\r\n`]) {
        const exchanged = await exchange(suite, pipelined(get(TODOS), refused))
        expectSuccess(exchanged.responses[0], 200)
        expect(exchanged.responses[1]?.json, describeExchange(exchanged)).toEqual({
          ...PARAMETER_TYPE_MISMATCH,
          target: 'header',
        })
      }
    })

    it('never answers e.ex.fw.7003, the body code, to a request without a body', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(LINE_BYTES, LINE_BYTES), { minLength: 1, maxLength: 3 }),
          async (lines) => {
            const head = lines.map(([name, value]) => `${name}: ${value}\r\n`).join('')
            const exchanged = await exchange(suite, `${HEAD}${head}\r\n`, { responses: 1 })
            const code = (exchanged.responses[0]?.json as { code?: string } | undefined)?.code
            expect(code, describeExchange(exchanged)).not.toBe(MALFORMED_BODY.code)
          },
        ),
        { numRuns: 150 },
      )
    })
  })
}
