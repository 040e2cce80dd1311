import fc from 'fast-check'
import type { IdKind, IdRef, IdVariant, PathId, Piece, RawId, Template } from './request-steps.js'

/**
 * Generated values for requests (each resource's testing/, resources/member/testing/bodies.ts): JSON values in
 * every textual form and their boundaries, JSON objects with mutations, ids (valid,
 * varied and hostile) and dates at and past the calendar's edges.
 */

// ---------------------------------------------------------------- JSON values

const jsonString = (value: string): Template => [JSON.stringify(value)]
export const strings = (...values: string[]) => fc.constantFrom(...values).map(jsonString)
export const texts = (...values: Template[]) => fc.constantFrom(...values)

/** A JSON number in each of its textual forms, and forms a JavaScript number cannot hold. */
export const JSON_NUMBER_TEXTS = [
  '1',
  '1.0',
  '1e0',
  '1E+0',
  '10e-1',
  '-0',
  '-0.0',
  '0e5',
  '1e309',
  '-1e309',
  '1e-400',
  '99999999999999999999999',
  '9007199254740993',
  '0.1',
] as const

/** Values of the wrong JSON type for a string field. */
const wrongType: fc.Arbitrary<Template> = fc.oneof(
  fc.constantFrom(...JSON_NUMBER_TEXTS).map((text) => [text]),
  texts(['true'], ['false'], ['[]'], ['{}'], ['["a"]'], ['{"a":"b"}']),
)

/** Strings a database may not hold or may hold differently: as JSON text, escapes included. */
export const hostileString: fc.Arbitrary<Template> = fc.oneof(
  texts(
    ['"\\u0000"'],
    ['"a\\u0000b"'],
    ['"\\ud800"'],
    ['"x\\udfff"'],
    ['"\\udc00\\ud800"'],
    ['"\\ud83d\\ude00"'],
    ['"\u0000"'], // a raw control character: not JSON
    ['"\\u2028\\u2029"'],
    ['"\\\\"'],
    ['"%_\\\\"'],
    ['"\\ufeff"'],
    ['"\\uffff"'],
  ),
  // Bytes that are not UTF-8: a stray byte, an encoded surrogate (CESU-8), an overlong NUL,
  // a code point past U+10FFFF.
  texts(
    ['"', { byte: 0xff }, '"'],
    ['"a', { byte: 0xed }, { byte: 0xa0 }, { byte: 0x80 }, '"'],
    ['"', { byte: 0xc0 }, { byte: 0x80 }, '"'],
    ['"', { byte: 0xf4 }, { byte: 0x90 }, { byte: 0x80 }, { byte: 0x80 }, '"'],
  ),
)

const nullEmptyOrAbsent = fc.constantFrom<Template | undefined>(['null'], ['""'], undefined)

/** Any value a string field may get: its boundary values mostly, else null, "", hostile, wrong. */
export function anyValue(boundary: fc.Arbitrary<Template>): fc.Arbitrary<Template | undefined> {
  return fc.oneof(
    { weight: 5, arbitrary: boundary },
    { weight: 2, arbitrary: nullEmptyOrAbsent },
    { weight: 2, arbitrary: hostileString },
    { weight: 1, arbitrary: wrongType },
  )
}

/** A JSON object from fields in order; an undefined value leaves the field out. */
export function jsonObject(
  fields: ReadonlyArray<readonly [string, Template | undefined]>,
): Template {
  const pieces: Piece[] = ['{']
  let first = true
  for (const [name, value] of fields) {
    if (value === undefined) continue
    if (!first) pieces.push(',')
    first = false
    pieces.push(`${JSON.stringify(name)}:`, ...value)
  }
  pieces.push('}')
  // Adjacent text pieces merged, so that a counterexample reads as JSON.
  return pieces.reduce<Piece[]>((merged, piece) => {
    const last = merged[merged.length - 1]
    if (typeof piece === 'string' && typeof last === 'string')
      merged[merged.length - 1] = last + piece
    else merged.push(piece)
    return merged
  }, [])
}

interface Mutation {
  readonly field: string
  readonly value: Template | undefined
}

/** 0 to 2 fields of an otherwise valid body replaced by other values (shrinks to valid). */
export const mutations = (
  fields: Record<string, fc.Arbitrary<Template | undefined>>,
  unknownFields: readonly string[],
) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant<Mutation[]>([]) },
    {
      weight: 3,
      arbitrary: fc.array(
        fc.oneof(
          ...Object.entries(fields).map(([field, value]) =>
            value.map((replacement): Mutation => ({ field, value: replacement })),
          ),
          // A field the resource does not have.
          fc.constantFrom(...unknownFields).map((field): Mutation => ({ field, value: ['"x"'] })),
        ),
        { minLength: 1, maxLength: 2 },
      ),
    },
  )

export function mutated(
  fields: Array<[string, Template | undefined]>,
  changes: readonly Mutation[],
): Template {
  const result = [...fields]
  for (const { field, value } of changes) {
    const at = result.findIndex(([name]) => name === field)
    if (at >= 0) result[at] = [field, value]
    else result.push([field, value])
  }
  return jsonObject(result)
}

// ---------------------------------------------------------------- query values

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

// ---------------------------------------------------------------- ids

const NON_SAME_VARIANTS: readonly IdVariant[] = ['swapcase', 'nul', 'space', 'short', 'long']

export const idRef = (kind: IdKind): fc.Arbitrary<IdRef> =>
  fc.record({
    ref: fc.constant(kind),
    index: fc.nat({ max: 7 }),
    variant: fc.oneof(
      { weight: 6, arbitrary: fc.constant<IdVariant>('same') },
      { weight: 1, arbitrary: fc.constantFrom(...NON_SAME_VARIANTS) },
    ),
  })

/** Path segments naming nothing: NUL, invalid UTF-8 (a lone surrogate), long, odd, empty. */
export const HOSTILE_PATH_IDS: readonly string[] = [
  '%00',
  'a%00',
  '%00a',
  '%ED%A0%80',
  'x%ED%B0%80',
  '%FF',
  '%C0%80',
  'a'.repeat(2000),
  'A'.repeat(10),
  '0000000000',
  encodeURIComponent('日本語の十文字のＩＤ'),
  encodeURIComponent('😀'),
  encodeURIComponent('e\u0301'),
  '',
  '%20',
  '%25',
  '%',
  '%ZZ',
  "'%20or%20'1'%3D'1",
  '00000000-0000-7000-8000-000000000000',
  'null',
]

const rawId: fc.Arbitrary<RawId> = fc.constantFrom(...HOSTILE_PATH_IDS).map((raw) => ({ raw }))

export const pathId = (kind: IdKind): fc.Arbitrary<PathId> =>
  fc.oneof({ weight: 3, arbitrary: idRef(kind) }, { weight: 1, arbitrary: rawId })

// ---------------------------------------------------------------- dates

const isoDate = (date: Date) => date.toISOString().slice(0, 10)
const DAY_MS = 24 * 60 * 60 * 1000
const now = Date.now()

/** The edge dates that are valid birth dates (decisions §1), and year 0000, which is not. */
export const PAST_EDGE_DATES: readonly string[] = [
  '0000-01-01',
  '0001-01-01',
  '0099-12-31',
  '0100-03-01',
  '1582-10-10',
  '1899-12-31',
  '1969-12-31',
  '2024-02-29',
  isoDate(new Date(now - DAY_MS)),
]

/** Dates at and past the edges: year 0, 1 and 9999, 10000, leap days, today, malformed. */
export const EDGE_DATES: readonly string[] = [
  ...PAST_EDGE_DATES,
  '1970-01-01',
  '9999-12-31',
  '10000-01-01',
  '2023-02-29',
  '2023-02-30',
  '2023-13-01',
  '2023-00-10',
  '2023-1-1',
  '20230101',
  '-0001-01-01',
  '+002023-01-01',
  '2023-01-01T00:00:00.000Z',
  '2023-01-01 ',
  isoDate(new Date(now)),
  isoDate(new Date(now + DAY_MS)),
]

/** A time stamp field a client may send back: valid, date-only, a word, or anything. */
export const timestampValue = anyValue(strings('2020-01-01T00:00:00.000Z', '2020-01-01', 'now'))
