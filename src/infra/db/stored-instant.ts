import type { Instant } from '../../domain/common/instant.js'

const ZERO = 0x30
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** The number written in `count` digits from `at`; -1 if any of them is no digit. */
function digitsAt(text: string, at: number, count: number): number {
  let value = 0
  for (let index = at; index < at + count; index += 1) {
    const digit = text.charCodeAt(index) - ZERO
    if (digit < 0 || digit > 9) return -1
    value = value * 10 + digit
  }
  return value
}

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)

/**
 * Whether `text` is what `toISOString()` writes: `yyyy-MM-ddTHH:mm:ss.sssZ`, a day that
 * its month has and a time of day before 24:00. Date's parser also takes a day past
 * its month's end and hour 24, and rolls them over to another day; such a text is not
 * the form.
 */
function isCanonical(text: string): boolean {
  if (
    text.length !== 24 ||
    text[4] !== '-' ||
    text[7] !== '-' ||
    text[10] !== 'T' ||
    text[13] !== ':' ||
    text[16] !== ':' ||
    text[19] !== '.' ||
    text[23] !== 'Z'
  ) {
    return false
  }
  const year = digitsAt(text, 0, 4)
  const month = digitsAt(text, 5, 2)
  const day = digitsAt(text, 8, 2)
  const hour = digitsAt(text, 11, 2)
  const minute = digitsAt(text, 14, 2)
  const second = digitsAt(text, 17, 2)
  const lastDay = month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0)
  return (
    year >= 0 &&
    day >= 1 &&
    day <= lastDay &&
    hour >= 0 &&
    hour <= 23 &&
    minute >= 0 &&
    minute <= 59 &&
    second >= 0 &&
    second <= 59 &&
    digitsAt(text, 20, 3) >= 0
  )
}

/**
 * The instant of a stored time stamp, selected as text (EngineTraits.instant). The
 * service writes them with `toISOString()`; SQLite gives that text back, and PostgreSQL
 * formats its `timestamptz` the same way, so the text read is already the instant's form
 * and is answered as it is, without a Date made and formatted back. Any other text (a row
 * written by hand, a year PostgreSQL does not format) is read as `new Date()` reads it;
 * one that names no instant throws its RangeError.
 */
export function storedInstant(text: string): Instant {
  return isCanonical(text) ? text : new Date(text).toISOString()
}
