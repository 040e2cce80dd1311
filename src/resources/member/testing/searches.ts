import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import type { Step } from '../../../testing/request-steps.js'
import { QUERY_NUMBERS } from '../../../testing/request-values.js'

/**
 * Generated member searches for the tests (requests.ts): name prefixes that match many,
 * few and none, with `%`, `_`, `\\` and non-ASCII letters; every parameter in every
 * textual form, repeated or absent; and how two servers' answers to one are compared.
 */

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

/** Sort properties whose order the data decides; memberId and time stamps differ per server. */
const DATA_ORDERED = new Set(['firstName', 'lastName', 'dateOfBirth', 'emailAddress'])

/**
 * Member search answers: `content` is ordered by the requested sort, ties (and the
 * default order) by the random memberId, which differs per server. So: everything but
 * `content` exactly; the data-decided sort keys of `content` position by position; the
 * members themselves as a multiset, of the whole answer when it holds every match, else
 * of the sort-key groups that lie wholly inside the page (not the first or last group).
 */
export function sameSearchAnswer(step: Step, a: unknown, b: unknown): boolean {
  const contentOf = (answer: unknown): unknown[] | undefined => {
    if (Array.isArray(answer)) return answer
    const content = (answer as { content?: unknown } | null)?.content
    return Array.isArray(content) ? content : undefined
  }
  const contentA = contentOf(a)
  const contentB = contentOf(b)
  if (contentA === undefined || contentB === undefined) return isDeepStrictEqual(a, b)
  const rest = (answer: unknown) =>
    Array.isArray(answer) ? [] : { ...(answer as object), content: undefined }
  if (!isDeepStrictEqual(rest(a), rest(b)) || contentA.length !== contentB.length) return false

  const orderedBy: string[] = []
  for (const sort of new URLSearchParams(step.query ?? '').getAll('sort')) {
    const property = sort.split(',')[0] ?? ''
    if (!DATA_ORDERED.has(property)) break
    orderedBy.push(property)
  }
  const keyOf = (member: unknown) =>
    JSON.stringify(orderedBy.map((property) => (member as Record<string, unknown>)[property]))
  const keysA = contentA.map(keyOf)
  const keysB = contentB.map(keyOf)
  if (!isDeepStrictEqual(keysA, keysB)) return false

  const total = Array.isArray(a)
    ? contentA.length
    : (a as { totalElements?: unknown }).totalElements
  const edges = new Set(total === contentA.length ? [] : [keysA[0], keysA[keysA.length - 1]])
  const inner = (content: unknown[], keys: string[]) =>
    content
      .filter((_, index) => !edges.has(keys[index]))
      .map((member) => JSON.stringify(member))
      .sort()
  return isDeepStrictEqual(inner(contentA, keysA), inner(contentB, keysB))
}
