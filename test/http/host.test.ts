import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PARAMETER_TYPE_MISMATCH } from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import { rawRequest } from '../helpers/raw-http.js'
import {
  describeExchange,
  exchange,
  storedTitles,
  TODOS,
  todoOf,
  uniqueTitle,
} from '../helpers/raw-todos.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * Host (RFC 9112 §3.2, RFC 3986 §3.2.2): a value that is no host [":" port] is 400
 * e.ex.fw.7006 naming Host, with nothing stored; every value the service accepts, and
 * every X-Forwarded-Host and -Proto a trusted proxy sends, gives a Location that a WHATWG
 * URL parser reads as an absolute URL of the new resource (src/api/request/host.ts).
 * Raw TCP, byte for byte: a client library would refuse most of these values.
 */

/** Values outside the grammar, or inside it with no URL a parser reads back. */
const REFUSED = [
  '[1:2:3]',
  '[::1',
  '[::1]x',
  '[::1]:8o',
  '[]',
  '[127.0.0.1]',
  '[::1%eth0]',
  '[::1%25eth0]',
  '[fe80::1]]',
  '[v1.x]',
  'example.com:99999',
  '1.2.3.999',
  'a%20b',
  'a%00b',
  'a%zz',
  ':80',
  'a:b:c',
]

const SERVED = [
  ['[::1]', 'http://[::1]'],
  ['[::ffff:127.0.0.1]:8080', 'http://[::ffff:7f00:1]:8080'],
  ['[2001:DB8::1]', 'http://[2001:db8::1]'],
  ['Example.COM:', 'http://example.com'],
  ['127.0.0.1:65535', 'http://127.0.0.1:65535'],
  ['a%2Db', 'http://a-b'],
] as const

/** Characters that make hosts, bad ones and good ones. */
const HOST_CHARACTERS = fc.constantFrom(
  ...'[]:.%0123456789abcdefvxABCDEF-_~!$&\'()*+,;=@/?#"<>^`{|}\\ '.split(''),
)
const hosts = fc.oneof(
  fc.string({ unit: HOST_CHARACTERS, minLength: 1, maxLength: 24 }),
  fc.ipV6().map((address) => `[${address}]`),
  fc.domain(),
  fc
    .tuple(fc.oneof(fc.domain(), fc.ipV4()), fc.nat(99_999))
    .map(([name, port]) => `${name}:${port}`),
)

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Host and Location on ${target.name}`, () => {
    const suite = serverPerSuite(target, { TRUST_PROXY: 'true' })

    /** POSTs a todo with these Host and headers; the answer and the title it sent. */
    async function post(host: string, headers: Record<string, string> = {}) {
      const title = uniqueTitle('host')
      const request = rawRequest('POST', TODOS, {
        host,
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ todoTitle: title }),
      })
      const exchanged = await exchange(suite, request, { responses: 1 })
      const answer = exchanged.responses[0]
      if (!answer) throw new Error(describeExchange(exchanged))
      return { answer, title, exchanged }
    }

    /** The Location of a 201, read by the WHATWG parser: the new todo's absolute URL. */
    function expectLocationOfNewTodo(answer: Awaited<ReturnType<typeof post>>['answer']): URL {
      const location = answer.headers.location as string
      expect(URL.canParse(location), location).toBe(true)
      const url = new URL(location)
      expect(['http:', 'https:']).toContain(url.protocol)
      expect(url.pathname).toBe(`${TODOS}/${todoOf(answer).todoId}`)
      return url
    }

    it.each(REFUSED)('Host %j -> 400 e.ex.fw.7006 naming Host, nothing stored', async (host) => {
      const { answer, title, exchanged } = await post(host)
      expect(answer.status, describeExchange(exchanged)).toBe(400)
      expect(answer.json).toEqual({ ...PARAMETER_TYPE_MISMATCH, target: 'Host' })
      expect(await storedTitles(suite.database)).not.toContain(title)
    })

    it.each(['[1:2:3]', '1.2.3.999', '[v1.x]'])(
      'answers GET / (the web app) with Host %j as the API does: 400 naming Host',
      async (host) => {
        const exchanged = await exchange(suite, rawRequest('GET', '/', { host }), { responses: 1 })
        expect(exchanged.responses[0]?.status, describeExchange(exchanged)).toBe(400)
        expect(exchanged.responses[0]?.json).toEqual({ ...PARAMETER_TYPE_MISMATCH, target: 'Host' })
      },
    )

    it.each(SERVED)('Host %j -> 201, Location on %s', async (host, origin) => {
      const { answer } = await post(host)
      expect(answer.status).toBe(201)
      expect(expectLocationOfNewTodo(answer).origin).toBe(origin)
    })

    it('answers any Host with a 400 naming it, or a 201 whose Location parses as an absolute URL', async () => {
      await fc.assert(
        fc.asyncProperty(hosts, async (host) => {
          const { answer, title, exchanged } = await post(host)
          if (answer.status === 400) {
            expect(answer.json).toEqual({ ...PARAMETER_TYPE_MISMATCH, target: 'Host' })
            expect(await storedTitles(suite.database)).not.toContain(title)
            return
          }
          expect(answer.status, describeExchange(exchanged)).toBe(201)
          expectLocationOfNewTodo(answer)
        }),
        { numRuns: 150 },
      )
    })

    it('writes a Location that parses whatever X-Forwarded-Host and -Proto a trusted proxy sends', async () => {
      const schemes = fc.oneof(
        fc.constantFrom('http', 'https', 'HTTPS', 'javascript', 'a b', 'https, http', ''),
        fc.string({ unit: HOST_CHARACTERS, maxLength: 8 }),
      )
      await fc.assert(
        fc.asyncProperty(hosts, schemes, async (forwardedHost, forwardedProto) => {
          const { answer, exchanged } = await post('127.0.0.1', {
            'X-Forwarded-Host': forwardedHost,
            'X-Forwarded-Proto': forwardedProto,
          })
          expect(answer.status, describeExchange(exchanged)).toBe(201)
          expectLocationOfNewTodo(answer)
        }),
        { numRuns: 150 },
      )
    })
  })
}
