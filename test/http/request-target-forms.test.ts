import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PARAMETER_TYPE_MISMATCH } from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import { rawRequest } from '../helpers/raw-http.js'
import {
  describeExchange,
  exchange,
  expectRawApiError,
  expectSuccess,
  get,
  pipelined,
  storedTitles,
  TODOS,
  uniqueTitle,
} from '../helpers/raw-todos.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * The forms of request target (RFC 9112 §3.2): origin-form (`/…`) and absolute-form
 * (`http://…`) reach their routes; the asterisk form `*` is OPTIONS's alone and answers
 * for the whole server; any other target, or `*` with any other method, is a refused
 * request line, `400 e.ex.fw.7006` naming `request-target`, which no route (the web app's
 * pages among them) answers and which changes nothing. Raw TCP, byte for byte.
 */

const REFUSED_TARGET = { ...PARAMETER_TYPE_MISMATCH, target: 'request-target' }
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

/** The first answer is the ApiError of a refused request target. */
function expectRefusedTarget(exchanged: Awaited<ReturnType<typeof exchange>>): void {
  expectRawApiError(exchanged, [400], { code: /^e\.ex\.fw\.7006$/ })
  expect(exchanged.responses[0]?.json).toEqual(REFUSED_TARGET)
}

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`request target forms on ${target.name}`, () => {
    const suite = serverPerSuite(target)

    it('answers OPTIONS * with 200 and the Allow of the whole server, then serves the next request', async () => {
      const exchanged = await exchange(suite, pipelined(rawRequest('OPTIONS', '*'), get(TODOS)), {
        responses: 2,
      })
      const [options, list] = exchanged.responses
      expect(options?.status, describeExchange(exchanged)).toBe(200)
      expect(options?.headers.allow).toBe('GET, HEAD, POST, PUT, DELETE, OPTIONS')
      expect(options?.body.length).toBe(0)
      expectSuccess(list, 200)
    })

    it.each(METHODS)(
      'answers %s * with 400 naming request-target, storing nothing',
      async (method) => {
        const title = uniqueTitle(`asterisk-${method}`)
        const request = rawRequest(method, '*', {
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ todoTitle: title }),
        })
        const exchanged = await exchange(suite, request, { responses: 1, methods: [method] })
        const [answer] = exchanged.responses
        expect(answer?.status, describeExchange(exchanged)).toBe(400)
        if (method === 'HEAD') expect(answer?.body.length).toBe(0)
        else expectRefusedTarget(exchanged)
        expect(await storedTitles(suite.database)).not.toContain(title)
      },
    )

    it('refuses every other target that begins with * for any method, OPTIONS too', async () => {
      const targets = fc.oneof(
        fc.constantFrom('**', '*?a=1', '*/api/v1/todos', '*a', '*#', '*%2A'),
        fc
          .string({ unit: fc.constantFrom(...'*/?=&a1%.'.split('')), minLength: 1, maxLength: 8 })
          .map((rest) => `*${rest}`),
      )
      await fc.assert(
        fc.asyncProperty(
          targets,
          fc.constantFrom('OPTIONS', 'GET', 'DELETE'),
          async (asterisk, method) => {
            const exchanged = await exchange(suite, rawRequest(method, asterisk), { responses: 1 })
            expectRefusedTarget(exchanged)
          },
        ),
        { numRuns: 60 },
      )
    })

    it('still serves absolute-form targets', async () => {
      const exchanged = await exchange(suite, rawRequest('GET', `http://127.0.0.1${TODOS}`), {
        responses: 1,
      })
      expectSuccess(exchanged.responses[0], 200)
    })
  })
}
