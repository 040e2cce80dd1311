import fc from 'fast-check'
import { RESOURCES } from '../../src/resources/index.js'
import type { Step, Template } from '../../src/testing/request-steps.js'
import { hostileString, jsonObject, texts } from '../../src/testing/request-values.js'
import { JSON_REQUEST_HEADERS, type ResourceRequests } from '../../src/testing/resource-requests.js'

/**
 * Generated request sequences over every endpoint of every resource: each resource's
 * requests come from its own testing/requests.ts (src/testing/resource-requests.ts says
 * what it gives), mostly valid values (so that creates succeed and later steps find what
 * they made), boundary values, and hostile ones: JSON numbers in every textual form, NUL,
 * lone surrogates, bytes that are not UTF-8, dates at and past the edges, long and odd ids.
 *
 * A body is a Template: JSON text in pieces, so that it can say what JSON.stringify
 * cannot (`1.0`, `-0`, `1e309`, `"\ud800"`, a raw 0xFF byte) and can name a resource
 * created earlier in the sequence, which each server knows by its own id.
 */

/** Each resource's requests, loaded from its folder, in the order of RESOURCES. */
export const RESOURCE_REQUESTS: readonly ResourceRequests[] = await Promise.all(
  RESOURCES.map(async ({ name }) => {
    const module: { requests?: ResourceRequests } = await import(
      `../../src/resources/${name}/testing/requests.ts`
    )
    if (module.requests?.kind !== name) {
      throw new Error(`src/resources/${name}/testing/requests.ts exports no requests of ${name}`)
    }
    return module.requests
  }),
)

const collections = RESOURCE_REQUESTS.map(({ collection }) => collection)

/** Bodies that are not a JSON object, or not JSON, or JSON that parsers may read differently. */
const oddBody: fc.Arbitrary<Template> = fc.oneof(
  texts(
    [''],
    [' '],
    ['{'],
    ['null'],
    ['[]'],
    ['"x"'],
    ['1e309'],
    ['{"todoTitle":"a","todoTitle":"b"}'],
    ['\ufeff{"todoTitle":"bom"}'],
    [' {"todoTitle":"spaces"}\n'],
    ['{"todoTitle":"a"} x'],
    ['{"todoTitle":"a",}'],
    ["{'todoTitle':'a'}"],
    ['{"todoTitle":"\\x41"}'],
    [`{"todoTitle":"${'x'.repeat(70_000)}"}`],
  ),
  hostileString.map((value) => jsonObject([['todoTitle', value]])),
)

/** One request of a sequence, over every endpoint. */
export const step: fc.Arbitrary<Step> = fc.oneof(
  ...RESOURCE_REQUESTS.flatMap(({ steps }) => steps),
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...collections),
        fc.constantFrom('GET', 'HEAD', 'OPTIONS', 'DELETE', 'PUT'),
      )
      .map(([collection, method]): Step => ({ method, collection, headers: {} })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom(...collections), oddBody).map(
      ([collection, body]): Step => ({
        method: 'POST',
        collection,
        body,
        headers: JSON_REQUEST_HEADERS,
      }),
    ),
  },
)

/** A request sequence: what one client might send, in order. */
export const requestSequence = (maxLength: number): fc.Arbitrary<Step[]> =>
  fc
    .tuple(
      // Creates first, so that the steps after them find items to read, change and delete.
      fc.array(fc.oneof(...RESOURCE_REQUESTS.map(({ validCreates }) => validCreates)), {
        maxLength: 2,
      }),
      fc.array(step, { minLength: 1, maxLength }),
    )
    .map(([creates, steps]) => [...creates, ...steps].slice(0, Math.max(maxLength, 1)))
