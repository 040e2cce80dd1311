import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { storedInstant } from '../../src/infra/db/stored-instant.js'

/** Whatever `new Date(text)` makes of a text: its instant, and its ISO form when valid. */
function asDateReads(date: Date) {
  const time = date.getTime()
  return Number.isNaN(time) ? { time } : { time, iso: date.toISOString() }
}

/** Canonical ISO texts with a few characters replaced: near misses of the stored form. */
const nearCanonicalTexts = fc
  .tuple(
    fc.date({ noInvalidDate: true }),
    fc.array(fc.tuple(fc.nat(23), fc.constantFrom(...'0123456789-+:.TZtz ,/'.split(''))), {
      minLength: 1,
      maxLength: 3,
    }),
  )
  .map(([date, edits]) => {
    const characters = date.toISOString().split('')
    for (const [at, character] of edits) characters[at] = character
    return characters.join('')
  })

describe('a stored time stamp read back (storedInstant)', () => {
  it('is the instant stored, and formats to exactly the text stored', () => {
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true }), (date) => {
        const text = date.toISOString()
        const read = storedInstant(text)
        expect(read.getTime()).toBe(date.getTime())
        expect(read.toISOString()).toBe(text)
        expect(JSON.stringify(read)).toBe(JSON.stringify(text))
      }),
    )
  })

  it('reads any other text exactly as new Date() reads it', () => {
    fc.assert(
      fc.property(fc.oneof(nearCanonicalTexts, fc.string()), (text) => {
        expect(asDateReads(storedInstant(text))).toEqual(asDateReads(new Date(text)))
      }),
      { numRuns: 20_000 },
    )
  })

  it('formats a day past its month, hour 24 or an extended year as new Date() does', () => {
    expect(storedInstant('2020-02-30T00:00:00.000Z').toISOString()).toBe('2020-03-01T00:00:00.000Z')
    expect(storedInstant('2020-01-01T24:00:00.000Z').toISOString()).toBe('2020-01-02T00:00:00.000Z')
    expect(storedInstant('+048806-01T23:15:06.782Z').toISOString()).toBe(
      '+048806-01-01T23:15:06.782Z',
    )
  })

  it('formats its new instant once it is changed', () => {
    const read = storedInstant('2026-11-27T10:00:00.000Z')
    read.setUTCHours(11)
    expect(read.toISOString()).toBe('2026-11-27T11:00:00.000Z')
  })
})
