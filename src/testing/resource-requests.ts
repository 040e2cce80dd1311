import fc from 'fast-check'
import type { IdKind, Step, Template } from './request-steps.js'
import { pathId } from './request-values.js'

/**
 * What each resource gives the generated request sequences of the tests, from its own
 * (resources/todo/testing/requests.ts for the Todo), loaded for every
 * resource of RESOURCES by test/helpers/request-generators.ts: its requests, the
 * population every sequence starts from, and how its answers are told apart.
 */
export interface ResourceRequests {
  /** The resource's name, as RESOURCES names it; its ids are references of this kind. */
  readonly kind: IdKind
  /** Its collection's path segment under /api/v1 (`todos`). */
  readonly collection: string
  /** The field of its JSON that holds its id (`todoId`). */
  readonly idField: string
  /** An id no resource of this kind has (a reference made while none exists yet). */
  readonly unknownId: string
  /** Its tables, each holding rows only of the ones before it: restored in this order. */
  readonly tables: readonly string[]
  /** Bodies of the resources created through the API before any sequence, in order. */
  readonly seeds: readonly unknown[]
  /** After the seeds: requests putting them in other states, given the path of the n-th seed. */
  readonly seedChanges?: (pathOf: (index: number) => string) => readonly SeedChange[]
  /** Its requests in a sequence, each with its weight among all of them. */
  readonly steps: readonly fc.WeightedArbitrary<Step>[]
  /** Creates that pass validation (mostly), with their weight: a sequence starts with some. */
  readonly validCreates: fc.WeightedArbitrary<Step>
  /**
   * Whether two answers to one of its requests agree where ids and time stamps are
   * placeholders; undefined leaves it to the plain comparison (equal bodies).
   */
  readonly sameAnswer?: (step: Step, a: unknown, b: unknown) => boolean | undefined
}

/** A request that changes a seed: sent to every server, answered 2xx. */
export interface SeedChange {
  readonly method: string
  readonly path: string
}

export const JSON_REQUEST_HEADERS = { 'content-type': 'application/json' }

const contentType = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Record<string, string>>(JSON_REQUEST_HEADERS) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Record<string, string>>(
      {},
      { 'content-type': 'application/json; charset=utf-8' },
      { 'content-type': 'text/plain' },
    ),
  },
)

/** If-Match and If-None-Match, now and then, with the ETags both resources give. */
const conditions = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Record<string, string>>({}) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Record<string, string>>(
      { 'if-match': '"1"' },
      { 'if-match': '"2"' },
      { 'if-match': '*' },
      { 'if-match': 'W/"1"' },
      { 'if-none-match': '"1"' },
      { 'if-none-match': '"2"' },
    ),
  },
)
const idempotencyKey = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Record<string, string>>({}) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('key-1', 'key-2')
      .map((key): Record<string, string> => ({ 'idempotency-key': key })),
  },
)
export const language = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Record<string, string>>({}) },
  { weight: 1, arbitrary: fc.constant<Record<string, string>>({ 'accept-language': 'ja' }) },
)
const merge = (...parts: Record<string, string>[]) => Object.assign({}, ...parts)

/** POST to the collection, with the usual headers around the body. */
export const post = (collection: string, body: fc.Arbitrary<Template>) =>
  fc.tuple(body, contentType, idempotencyKey, language).map(
    ([template, type, key, lang]): Step => ({
      method: 'POST',
      collection,
      body: template,
      headers: merge(type, key, lang),
    }),
  )

/** A bodiless request to an item, its id a reference or a hostile one. */
export const itemStep = (collection: string, kind: IdKind, methods: fc.Arbitrary<string>) =>
  fc.tuple(methods, pathId(kind), conditions, language).map(
    ([method, id, condition, lang]): Step => ({
      method,
      collection,
      id,
      headers: merge(condition, lang),
    }),
  )

/** A request to an item with a body (PUT), conditions now and then. */
export const itemWrite = (
  collection: string,
  writes: fc.Arbitrary<{ id: Step['id']; body: Template }>,
  method = 'PUT',
) =>
  fc.tuple(writes, contentType, conditions, language).map(
    ([{ id, body }, type, condition, lang]): Step => ({
      method,
      collection,
      id,
      body,
      headers: merge(type, condition, lang),
    }),
  )

/** The methods an item is asked with: mostly those it serves. */
export const itemMethods = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'HEAD', 'OPTIONS') },
  { weight: 1, arbitrary: fc.constantFrom('POST', 'PATCH') },
)
