/**
 * A moment in time as the text `Date.prototype.toISOString()` writes: UTC to the
 * millisecond, `yyyy-MM-ddTHH:mm:ss.sssZ`. SQLite stores the resources' time stamps in
 * this form and the answers carry them in it, so they go from one to the other as text,
 * without a Date made and formatted back at every read (7.5 % of the instructions of a
 * GET of a member on SQLite, docs/performance.md). Texts of this one form (years 0000 to
 * 9999) order as their instants do.
 */
export type Instant = string

/** The instant a Date holds. */
export function instantOf(date: Date): Instant {
  return date.toISOString()
}
