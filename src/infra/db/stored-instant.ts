/** Character codes of the canonical form's fixed characters. */
const DASH = 0x2d
const T = 0x54
const Z = 0x5a
const ZERO = 0x30

/**
 * A time stamp read back as the ISO text it was stored as (SQLite keeps them as text,
 * written by `toISOString()`): a Date that answers `toISOString()` with that text instead
 * of formatting its instant again. Parsing and formatting four stamps was some 3 % of a
 * GET of a member; formatting is the larger part. Once the instant changes (a setter),
 * it formats as any Date does.
 */
class StoredInstant extends Date {
  readonly #text: string
  readonly #time: number

  constructor(text: string) {
    super(text)
    this.#text = text
    this.#time = this.getTime()
  }

  override toISOString(): string {
    return this.getTime() === this.#time ? this.#text : super.toISOString()
  }
}

const twoDigits = (text: string, at: number) =>
  (text.charCodeAt(at) - ZERO) * 10 + (text.charCodeAt(at + 1) - ZERO)

/**
 * Whether `date`, parsed from `text`, formats back to exactly `text`: the 24 characters
 * of `yyyy-MM-ddTHH:mm:ss.sssZ`. The parser also takes a day past its month's end and hour
 * 24, and rolls them over to another day: the day of the month read back tells.
 */
function isCanonical(text: string, date: Date): boolean {
  return (
    text.length === 24 &&
    text.charCodeAt(4) === DASH &&
    text.charCodeAt(7) === DASH &&
    text.charCodeAt(10) === T &&
    text.charCodeAt(23) === Z &&
    !Number.isNaN(date.getTime()) &&
    date.getUTCDate() === twoDigits(text, 8)
  )
}

/** The Date of a stored ISO text; one that keeps the text when it is the canonical form. */
export function storedInstant(text: string): Date {
  const instant = new StoredInstant(text)
  return isCanonical(text, instant) ? instant : new Date(instant.getTime())
}
