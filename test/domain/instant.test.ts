import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatInstant, parseInstant } from '../../src/domain/common/instant.js'

/** Both results as comparable values: Invalid Date as NaN, a throw as its message. */
const outcome = (run: () => Date | string) => {
  try {
    const value = run()
    return typeof value === 'string' ? value : value.getTime()
  } catch (error) {
    return `throws ${(error as Error).message}`
  }
}

const anyDate = fc.oneof(
  fc.date({ noInvalidDate: false }),
  fc.date({
    min: new Date('0999-12-31T00:00:00.000Z'),
    max: new Date(Date.UTC(10000, 0, 2)),
  }),
)

/** Strings of the canonical shape whose fields come up at and past their limits often. */
const field = (max: number, width: number) =>
  fc
    .oneof(fc.integer({ min: 0, max }), fc.constantFrom(0, 1, max - 1, max))
    .map((value) => String(value).padStart(width, '0'))
const canonicalShape = fc
  .tuple(
    fc.oneof(field(9999, 4), fc.constantFrom('0000', '0099', '0100', '0999', '1000', '9999')),
    field(13, 2),
    field(32, 2),
    field(24, 2),
    field(60, 2),
    field(60, 2),
    field(999, 3),
  )
  .map(([y, mo, d, h, mi, s, ms]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`)
const nearlyCanonical = fc
  .tuple(fc.date({ noInvalidDate: true }), fc.nat(23), fc.string({ maxLength: 1 }))
  .map(([date, at, replacement]) => {
    const text = date.toISOString()
    return text.slice(0, at) + replacement + text.slice(at + 1)
  })

describe('instants', () => {
  it('formats every date exactly as toISOString does, Invalid Date included', () => {
    fc.assert(
      fc.property(anyDate, (date) => {
        expect(outcome(() => formatInstant(date))).toEqual(outcome(() => date.toISOString()))
      }),
      { numRuns: 20_000 },
    )
  })

  it('parses every string exactly as the Date constructor does', () => {
    fc.assert(
      fc.property(fc.oneof(canonicalShape, nearlyCanonical, fc.string()), (text) => {
        expect(outcome(() => parseInstant(text))).toEqual(outcome(() => new Date(text)))
      }),
      { numRuns: 20_000 },
    )
  })

  it('reads back what it writes', () => {
    for (const text of [
      '2026-01-31T09:05:00.000Z',
      '1000-01-01T00:00:00.001Z',
      '9999-12-31T23:59:59.999Z',
    ]) {
      expect(formatInstant(parseInstant(text))).toBe(text)
    }
  })
})
