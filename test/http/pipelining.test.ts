import { describe, expect, it } from 'vitest'
import {
  BODY_TOO_LARGE,
  JSON_TYPE,
  MALFORMED_BODY,
  PARAMETER_TYPE_MISMATCH,
  todoNotFound,
} from '../helpers/api-errors.js'
import { DATABASES } from '../helpers/databases.js'
import { rawRequest } from '../helpers/raw-http.js'
import {
  countTodos,
  describeExchange,
  exchange,
  expectClosedAfterOneAnswer,
  expectNosniff,
  expectRawApiError,
  expectStillServing,
  get,
  HEADER_TOO_LARGE,
  type Headers,
  listedTitles,
  paddedTodo,
  pipelined,
  postBody,
  postTodo,
  RUN,
  statusesAndTracks,
  storedTitles,
  summarize,
  TODOS,
  TRACK_ID,
  todoOf,
  UNKNOWN_TODO_ID,
  uniqueTitle,
} from '../helpers/raw-todos.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * Pipelined requests on the wire (decisions §2 "Connections"): several requests in one
 * TCP write are answered in their order, each with its X-Track, whatever each answers.
 * Every request goes over a raw TCP connection (test/helpers/raw-http.ts), byte for
 * byte as written here.
 */

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`pipelined requests on ${target.name}`, () => {
    const suite = serverPerSuite(target)

    it('answers GETs, POSTs, HEAD and a 404 in the order of the requests', async () => {
      const titles = [uniqueTitle('order'), uniqueTitle('order')] as const
      const exchanged = await exchange(
        suite,
        pipelined(
          get(TODOS, { 'X-Track': 'order-1' }),
          postTodo(titles[0], { 'X-Track': 'order-2' }),
          get(`${TODOS}/${UNKNOWN_TODO_ID}`, { 'X-Track': 'order-3' }),
          postTodo(titles[1], { 'X-Track': 'order-4' }),
          rawRequest('HEAD', TODOS, { headers: { 'X-Track': 'order-5' } }),
          get(TODOS, { 'X-Track': 'order-6', Connection: 'close' }),
        ),
        { methods: ['GET', 'POST', 'GET', 'POST', 'HEAD', 'GET'] },
      )
      const { responses } = exchanged
      expect(statusesAndTracks(exchanged), describeExchange(exchanged)).toEqual([
        [200, 'order-1'],
        [201, 'order-2'],
        [404, 'order-3'],
        [201, 'order-4'],
        [200, 'order-5'],
        [200, 'order-6'],
      ])
      for (const response of responses) {
        expect(response.headers['content-type']).toBe(JSON_TYPE)
      }
      expect(todoOf(responses[1]).todoTitle).toBe(titles[0])
      expect(responses[2]?.json).toEqual(todoNotFound(UNKNOWN_TODO_ID))
      expect(todoOf(responses[3]).todoTitle).toBe(titles[1])
      expect(responses[4]?.body.length).toBe(0)
      expect(exchanged.closedByServer).toBe(true)
    })

    it('answers 20 alternating POSTs and GETs in order, each matched by its X-Track', async () => {
      const requests: Buffer[] = []
      const expected: [number, string][] = []
      for (let index = 0; index < 20; index++) {
        const track = `many.${RUN}.${index}`
        const last = index === 19
        const headers: Headers = { 'X-Track': track, ...(last && { Connection: 'close' }) }
        if (index % 2 === 0) {
          requests.push(postTodo(`many-${RUN}-${index}`, headers))
          expected.push([201, track])
        } else {
          requests.push(get(index % 4 === 1 ? TODOS : `${TODOS}/${UNKNOWN_TODO_ID}`, headers))
          expected.push([index % 4 === 1 ? 200 : 404, track])
        }
      }
      const exchanged = await exchange(suite, pipelined(...requests))
      expect(statusesAndTracks(exchanged), describeExchange(exchanged)).toEqual(expected)
      exchanged.responses.forEach((response, index) => {
        if (index % 2 === 0) expect(todoOf(response).todoTitle).toBe(`many-${RUN}-${index}`)
      })
    })

    it('answers a flood of 2,000 pipelined requests, all in order (read as the line shortens)', async () => {
      const count = 2000
      const requests = Array.from({ length: count }, (_, index) =>
        get('/health/live', {
          'X-Track': `flood.${RUN}.${index}`,
          ...(index === count - 1 && { Connection: 'close' }),
        }),
      )
      const exchanged = await exchange(suite, pipelined(...requests), { timeoutMs: 20_000 })
      expect(statusesAndTracks(exchanged)).toEqual(
        Array.from({ length: count }, (_, index) => [200, `flood.${RUN}.${index}`]),
      )
    })

    it('answers a large POST before the small GET pipelined behind it', async () => {
      const title = uniqueTitle('large')
      const exchanged = await exchange(
        suite,
        pipelined(
          postBody(paddedTodo(title, 65_536), { 'X-Track': 'large-post' }),
          get(TODOS, { 'X-Track': 'small-get', Connection: 'close' }),
        ),
      )
      expect(statusesAndTracks(exchanged), describeExchange(exchanged)).toEqual([
        [201, 'large-post'],
        [200, 'small-get'],
      ])
      expect(todoOf(exchanged.responses[0]).todoTitle).toBe(title)
    })

    it('answers requests split across writes at arbitrary byte boundaries', async () => {
      const title = uniqueTitle('split')
      const bytes = pipelined(
        postTodo(title, { 'X-Track': 'split-1' }),
        get(TODOS, { 'X-Track': 'split-2', Connection: 'close' }),
      )
      const cuts = [3, 17, 40, 95, bytes.length - 5]
      const writes = cuts.map((cut, index) => bytes.subarray(cuts[index - 1] ?? 0, cut))
      writes.push(bytes.subarray(cuts.at(-1)))
      const exchanged = await exchange(suite, writes, { writeIntervalMs: 20 })
      expect(statusesAndTracks(exchanged), describeExchange(exchanged)).toEqual([
        [201, 'split-1'],
        [200, 'split-2'],
      ])
    })

    it('executes a pipelined GET after the POST before it: the list holds the new todo', async () => {
      const title = uniqueTitle('seen')
      const exchanged = await exchange(
        suite,
        pipelined(postTodo(title), get(TODOS, { Connection: 'close' })),
      )
      expect(
        statusesAndTracks(exchanged).map(([status]) => status),
        describeExchange(exchanged),
      ).toEqual([201, 200])
      expect(listedTitles(exchanged.responses[1])).toContain(title)
    })

    it('(a) a valid POST then GARBAGE in one write: 201 first (stored), then 400 7006, then close', async () => {
      const title = uniqueTitle('garbage')
      const before = await countTodos(suite.database)
      const exchanged = await exchange(
        suite,
        pipelined(postTodo(title, { 'X-Track': 'before-garbage' }), 'GARBAGE\r\n\r\n'),
      )
      const { responses } = exchanged
      expect(responses.map(summarize), describeExchange(exchanged)).toEqual([
        {
          statusLine: 'HTTP/1.1 201 Created',
          contentType: JSON_TYPE,
          track: 'before-garbage',
          body: expect.objectContaining({ todoTitle: title, finished: false }),
        },
        {
          statusLine: 'HTTP/1.1 400 Bad Request',
          contentType: JSON_TYPE,
          track: expect.stringMatching(TRACK_ID),
          body: { ...PARAMETER_TYPE_MISMATCH, target: 'request-target' },
        },
      ])
      for (const response of responses) expectNosniff(response, response.statusLine)
      expect(exchanged.closedByServer).toBe(true)
      expect(await storedTitles(suite.database)).toContain(title)
      expect(await countTodos(suite.database)).toBe(before + 1)
      await expectStillServing(suite)
    })

    it('(b) POST a, POST {x, POST b in one write: 201, 400; b stored only if its 201 came', async () => {
      const [a, b] = [uniqueTitle('pipe-a'), uniqueTitle('pipe-b')]
      const before = await countTodos(suite.database)
      const exchanged = await exchange(
        suite,
        pipelined(
          postTodo(a, { 'X-Track': 'pipe-a' }),
          postBody('{x', { 'X-Track': 'pipe-x' }),
          // If the connection stays open after the 400, this one closes it.
          postTodo(b, { 'X-Track': 'pipe-b', Connection: 'close' }),
        ),
      )
      const { responses } = exchanged
      expect(statusesAndTracks(exchanged).slice(0, 2), describeExchange(exchanged)).toEqual([
        [201, 'pipe-a'],
        [400, 'pipe-x'],
      ])
      expect(todoOf(responses[0]).todoTitle).toBe(a)
      expect(responses[1]?.json).toEqual(MALFORMED_BODY)
      expect(exchanged.closedByServer).toBe(true)
      const titles = await storedTitles(suite.database)
      expect(titles).toContain(a)
      if (responses.length === 2) {
        // The 400 closed the connection: b was received but must not have run.
        expect(titles).not.toContain(b)
        expect(await countTodos(suite.database)).toBe(before + 1)
      } else {
        expect(responses.length).toBe(3)
        expect(responses[2]?.status).toBe(201)
        expect(todoOf(responses[2]).todoTitle).toBe(b)
        expect(titles).toContain(b)
        expect(await countTodos(suite.database)).toBe(before + 2)
      }
      // A new connection sees the same.
      const list = await exchange(suite, get(TODOS), { responses: 1 })
      expect(listedTitles(list.responses[0]).includes(b)).toBe(responses.length === 3)
    })

    it('does not execute a request pipelined after one with Connection: close', async () => {
      const [first, second] = [uniqueTitle('closing'), uniqueTitle('after-close')]
      const exchanged = await exchange(
        suite,
        pipelined(
          postTodo(first, { 'X-Track': 'closing', Connection: 'close' }),
          postTodo(second, { 'X-Track': 'after-close' }),
        ),
      )
      expect(statusesAndTracks(exchanged), describeExchange(exchanged)).toEqual([[201, 'closing']])
      expect(exchanged.closedByServer).toBe(true)
      const titles = await storedTitles(suite.database)
      expect(titles).toContain(first)
      expect(titles).not.toContain(second)
    })

    it('does not execute a request pipelined after a 413 (Content-Length body over the limit)', async () => {
      const [big, after] = [uniqueTitle('too-big'), uniqueTitle('after-413')]
      const exchanged = await exchange(
        suite,
        pipelined(
          postBody(paddedTodo(big, 65_537), { 'X-Track': 'too-big' }),
          postTodo(after, { 'X-Track': 'after-413' }),
        ),
      )
      expectRawApiError(exchanged, [413], BODY_TOO_LARGE)
      expect(exchanged.responses[0]?.headers['x-track']).toBe('too-big')
      await expectClosedAfterOneAnswer(suite, exchanged, [big, after])
    })

    it('does not execute a request pipelined after a 413 (chunked body over the limit)', async () => {
      const [big, after] = [uniqueTitle('chunked-big'), uniqueTitle('after-413c')]
      const body = paddedTodo(big, 70_000)
      const chunked = Buffer.concat([
        rawRequest('POST', TODOS, {
          headers: {
            'Content-Type': 'application/json',
            'Transfer-Encoding': 'chunked',
            'X-Track': 'chunked-big',
          },
        }),
        Buffer.from(`${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`),
      ])
      const exchanged = await exchange(
        suite,
        pipelined(chunked, postTodo(after, { 'X-Track': 'after-413c' })),
      )
      expectRawApiError(exchanged, [413], BODY_TOO_LARGE)
      await expectClosedAfterOneAnswer(suite, exchanged, [big, after])
    })

    it('does not execute a request pipelined after a 431 (a 20 KiB header)', async () => {
      const after = uniqueTitle('after-431')
      const exchanged = await exchange(
        suite,
        pipelined(
          get(TODOS, { 'X-Big': 'a'.repeat(20 * 1024) }),
          postTodo(after, { 'X-Track': 'after-431' }),
        ),
      )
      expectRawApiError(exchanged, [431], HEADER_TOO_LARGE)
      await expectClosedAfterOneAnswer(suite, exchanged, [after])
    })

    it('does not execute a request pipelined after a request Node cannot parse', async () => {
      const after = uniqueTitle('after-400')
      const exchanged = await exchange(
        suite,
        pipelined(
          'GET /api/v1/todos HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n',
          postTodo(after, { 'X-Track': 'after-400' }),
        ),
      )
      expectRawApiError(exchanged, [400])
      await expectClosedAfterOneAnswer(suite, exchanged, [after])
    })
  })
}
