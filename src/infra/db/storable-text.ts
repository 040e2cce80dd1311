/**
 * Can every database hold this text as it is? PostgreSQL refuses a NUL in text, and a
 * lone surrogate has no UTF-8 form (each driver would store U+FFFD instead). A key that
 * is no such text names no row on any database, so it is answered without a query
 * (decisions §2: the resource's 404, the same on SQLite and PostgreSQL).
 */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && value.isWellFormed()
}
