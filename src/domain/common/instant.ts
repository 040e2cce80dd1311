/**
 * A moment in time as the text `Date.prototype.toISOString()` writes: UTC to the
 * millisecond, `yyyy-MM-ddTHH:mm:ss.sssZ`. The resources' time stamps travel in this
 * form from the database to the answer, which is where they are stored and answered as
 * text, instead of being made into a Date and formatted back for every read (some 8 % of
 * the instructions of a GET of a member on SQLite, docs/performance.md). Texts of this
 * one form order as their instants do.
 */
export type Instant = string

/** The instant a Date holds. */
export function instantOf(date: Date): Instant {
  return date.toISOString()
}
