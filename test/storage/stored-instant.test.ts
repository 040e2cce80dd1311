import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { storedInstant } from '../../src/infra/db/stored-instant.js'

/** What reading `text` answers: the instant's text, or the error it throws. */
function reading(read: () => string) {
  try {
    return { instant: read() }
  } catch (error) {
    return { thrown: (error as Error).constructor.name }
  }
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
  it('is the text stored, when toISOString() wrote it', () => {
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true }), (date) => {
        const text = date.toISOString()
        expect(storedInstant(text)).toBe(text)
      }),
    )
  })

  it('reads any other text exactly as new Date() reads it, or throws as its toISOString() does', () => {
    fc.assert(
      fc.property(fc.oneof(nearCanonicalTexts, fc.string()), (text) => {
        expect(reading(() => storedInstant(text))).toEqual(
          reading(() => new Date(text).toISOString()),
        )
      }),
      { numRuns: 20_000 },
    )
  })

  it('rolls a day past its month or hour 24 over, and reads other forms, as new Date() does', () => {
    expect(storedInstant('2020-02-30T00:00:00.000Z')).toBe('2020-03-01T00:00:00.000Z')
    expect(storedInstant('2021-02-29T00:00:00.000Z')).toBe('2021-03-01T00:00:00.000Z')
    expect(storedInstant('2020-02-29T00:00:00.000Z')).toBe('2020-02-29T00:00:00.000Z')
    expect(storedInstant('2020-01-01T24:00:00.000Z')).toBe('2020-01-02T00:00:00.000Z')
    expect(storedInstant('2026-11-27 10:00:00Z')).toBe('2026-11-27T10:00:00.000Z')
    expect(storedInstant('+048806-01T23:15:06.782Z')).toBe('+048806-01-01T23:15:06.782Z')
    expect(() => storedInstant('yesterday')).toThrow(RangeError)
  })
})
