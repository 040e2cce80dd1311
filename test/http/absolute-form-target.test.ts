import { describe, expect, it } from 'vitest'
import { DATABASES } from '../helpers/databases.js'
import { rawRequest } from '../helpers/raw-http.js'
import {
  exchange,
  expectSuccess,
  storedTitles,
  TODOS,
  todoOf,
  uniqueTitle,
} from '../helpers/raw-todos.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * The absolute-form request target (`POST http://host/api/v1/todos`, decisions §5
 * Location): whatever authority it names, Location stays on the service's own host.
 * Every request goes over a raw TCP connection (test/helpers/raw-http.ts).
 */

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`absolute-form request target on ${target.name}`, () => {
    const suite = serverPerSuite(target)
    const authority = () => new URL(suite.server.baseUrl).host

    it.each(['http://evil.example/api/v1/todos', 'https://evil.example:8443/api/v1/todos'])(
      'POST %s -> 201, Location from the Host header and the path',
      async (absolute) => {
        const title = uniqueTitle('absolute')
        const exchanged = await exchange(
          suite,
          rawRequest('POST', absolute, {
            host: authority(),
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ todoTitle: title }),
          }),
          { responses: 1 },
        )
        const [answer] = exchanged.responses
        expectSuccess(answer, 201)
        const { todoId } = todoOf(answer)
        expect(answer?.headers.location).toBe(`http://${authority()}${TODOS}/${todoId}`)
        expect(answer?.headers.location).not.toContain('evil.example')
        expect(await storedTitles(suite.database)).toContain(title)
      },
    )

    it('GET http://evil.example/api/v1/todos -> 200 with the list', async () => {
      const exchanged = await exchange(
        suite,
        rawRequest('GET', 'http://evil.example/api/v1/todos', { host: authority() }),
        { responses: 1 },
      )
      expectSuccess(exchanged.responses[0], 200)
      expect(Array.isArray(exchanged.responses[0]?.json)).toBe(true)
    })
  })
}
