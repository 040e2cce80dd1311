/**
 * A moment in time as the text `Date.prototype.toISOString()` writes: UTC to the
 * millisecond, `yyyy-MM-ddTHH:mm:ss.sssZ`. The resources' time stamps are read in this
 * form from both databases (SQLite stores it, PostgreSQL formats it in the select) and
 * the answers carry them in it, so they go from one to the other as text, without a Date
 * made and formatted back at every read, work no answer needs. Texts of this one form
 * (years 0000 to 9999) order as their instants do.
 */
export type Instant = string

/** The instant a Date holds. */
export function instantOf(date: Date): Instant {
  return date.toISOString()
}
