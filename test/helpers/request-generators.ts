import fc from 'fast-check'
import {
  memberCreateBody,
  memberUpdate,
  oddBody,
  todoBody,
  validMemberCreateBody,
} from './request-bodies.js'
import type { IdKind, Step, Template } from './request-templates.js'
import { pathId } from './request-values.js'

/**
 * Generated request sequences over every endpoint, built from the route schemas: mostly
 * valid values (so that creates succeed and later steps find what they made), boundary
 * values, and hostile ones: JSON numbers in every textual form, NUL, lone surrogates,
 * bytes that are not UTF-8, dates at and past the edges, long and odd ids.
 *
 * A body is a Template: JSON text in pieces, so that it can say what JSON.stringify
 * cannot (`1.0`, `-0`, `1e309`, `"\ud800"`, a raw 0xFF byte) and can name a resource
 * created earlier in the sequence, which each server knows by its own id.
 */

// ---------------------------------------------------------------- search query

/** Query integers in every text form (percent-encoded where a URL needs it). */
export const QUERY_NUMBERS: readonly string[] = [
  '0',
  '1',
  '2',
  '5',
  '20',
  '100',
  '101',
  '-1',
  '1e3',
  '5.0',
  '0x10',
  '%205',
  '5%20',
  '+5',
  '%2B5',
  '-0',
  '007',
  'Infinity',
  '-Infinity',
  'NaN',
  '1e309',
  '99999999999999999999999',
  '9007199254740991',
  '9007199254740992',
  '2147483648',
  '',
  '%00',
  '%EF%BC%95', // a fullwidth 5
]

const NAME_PREFIXES: readonly string[] = [
  'T',
  'Ta',
  'Taro',
  't',
  'ta',
  'Y',
  'H',
  'Ta%25',
  'Ta_',
  'Ta%5C',
  '%25',
  '_',
  '%5C',
  encodeURIComponent('日'),
  encodeURIComponent('😀'),
  encodeURIComponent('É'),
  encodeURIComponent('Ｙ'),
  '',
  '%20',
  '%00',
  'T%00',
  '%ED%A0%80',
  '%FF',
  'a'.repeat(129),
  'a'.repeat(2000),
]
const SORTS: readonly string[] = [
  'firstName',
  'firstName,asc',
  'lastName,DESC',
  'lastName,desc',
  'dateOfBirth,desc',
  'emailAddress',
  'memberId',
  'createdAt,desc',
  'lastModifiedAt',
  'firstName%2Cdesc',
  'password',
  'firstName,up',
  'FIRSTNAME',
  '',
  ',',
  'firstName,asc,extra',
]

/** Mostly values that pass (so that searches find members), else any of `all`. */
const usually = (usual: readonly string[], all: readonly string[]) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...usual) },
    { weight: 1, arbitrary: fc.constantFrom(...all) },
  )

/** `name=value` pairs: none, one (mostly) or the parameter repeated. */
const parameter = (name: string, values: fc.Arbitrary<string>) =>
  fc
    .oneof(
      { weight: 2, arbitrary: fc.constant([]) },
      { weight: 4, arbitrary: values.map((value) => [value]) },
      { weight: 1, arbitrary: fc.array(values, { minLength: 2, maxLength: 2 }) },
    )
    .map((chosen) => chosen.map((value) => `${name}=${value}`))

const namePrefix = usually(
  [
    'T',
    'Ta',
    'Taro',
    'Tar',
    't',
    'H',
    'Y',
    'Ta%25',
    'Ta_',
    'Ta%5C',
    ...['日', 'É', 'İ'].map(encodeURIComponent),
  ],
  NAME_PREFIXES,
)

export const searchQuery: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(
      { weight: 6, arbitrary: namePrefix.map((value) => [`name=${value}`]) },
      { weight: 1, arbitrary: parameter('name', namePrefix) },
    ),
    parameter('page', usually(['0', '0', '1'], QUERY_NUMBERS)),
    parameter('size', usually(['1', '2', '3', '20'], QUERY_NUMBERS)),
    parameter(
      'sort',
      usually(
        ['firstName', 'lastName,desc', 'dateOfBirth,desc', 'emailAddress', 'memberId'],
        SORTS,
      ),
    ),
    fc.oneof(
      { weight: 3, arbitrary: fc.constant([]) },
      {
        weight: 1,
        arbitrary: parameter('unpaged', usually(['true'], ['false', '1', 'TRUE', 'yes', ''])),
      },
    ),
    fc.constantFrom([], [], [], ['other=1'], ['name'], ['page'], ['&']),
  )
  .map((parts) => `?${parts.flat().join('&')}`)

// ---------------------------------------------------------------- headers and steps

const JSON_REQUEST_HEADERS = { 'content-type': 'application/json' }
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
const language = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Record<string, string>>({}) },
  { weight: 1, arbitrary: fc.constant<Record<string, string>>({ 'accept-language': 'ja' }) },
)
const merge = (...parts: Record<string, string>[]) => Object.assign({}, ...parts)

const post = (collection: Step['collection'], body: fc.Arbitrary<Template>) =>
  fc.tuple(body, contentType, idempotencyKey, language).map(
    ([template, type, key, lang]): Step => ({
      method: 'POST',
      collection,
      body: template,
      headers: merge(type, key, lang),
    }),
  )

const itemStep = (collection: Step['collection'], kind: IdKind, methods: fc.Arbitrary<string>) =>
  fc.tuple(methods, pathId(kind), conditions, language).map(
    ([method, id, condition, lang]): Step => ({
      method,
      collection,
      id,
      headers: merge(condition, lang),
    }),
  )

const itemMethods = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'HEAD', 'OPTIONS') },
  { weight: 1, arbitrary: fc.constantFrom('POST', 'PATCH') },
)

/** One request of a sequence, over every endpoint. */
export const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: post('todos', todoBody) },
  { weight: 4, arbitrary: post('members', memberCreateBody) },
  { weight: 4, arbitrary: itemStep('todos', 'todo', itemMethods) },
  {
    weight: 3,
    arbitrary: itemStep(
      'members',
      'member',
      itemMethods.map((method) => (method === 'PUT' ? 'GET' : method)),
    ),
  },
  {
    weight: 4,
    arbitrary: fc.tuple(memberUpdate, contentType, conditions, language).map(
      ([{ id, body }, type, condition, lang]): Step => ({
        method: 'PUT',
        collection: 'members',
        id,
        body,
        headers: merge(type, condition, lang),
      }),
    ),
  },
  {
    weight: 4,
    arbitrary: fc.tuple(fc.constantFrom('GET', 'GET', 'GET', 'HEAD'), searchQuery, language).map(
      ([method, query, lang]): Step => ({
        method,
        collection: 'members',
        query,
        headers: lang,
      }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom<Step['collection']>('todos', 'members'),
        fc.constantFrom('GET', 'HEAD', 'OPTIONS', 'DELETE', 'PUT'),
      )
      .map(([collection, method]): Step => ({ method, collection, headers: {} })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom<Step['collection']>('todos', 'members'), oddBody).map(
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
      fc.array(
        fc.oneof(
          {
            weight: 1,
            arbitrary: post('todos', todoBody),
          },
          { weight: 2, arbitrary: post('members', validMemberCreateBody) },
        ),
        { maxLength: 2 },
      ),
      fc.array(step, { minLength: 1, maxLength }),
    )
    .map(([creates, steps]) => [...creates, ...steps].slice(0, Math.max(maxLength, 1)))
