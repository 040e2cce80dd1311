/**
 * A case-sensitive prefix match as a range, `prefix <= value < upper bound`, in
 * code-point order (SQLite's BINARY and PostgreSQL's "C" collation). Unlike LIKE it
 * has no wildcards to escape, so `%`, `_` and `\` match themselves, and it is an
 * index range scan on both databases.
 */
export interface PrefixRange {
  readonly from: string
  /** Exclusive; absent when no string is greater than every match (a prefix of U+10FFFF only). */
  readonly below: string | undefined
}

export function prefixRange(prefix: string): PrefixRange {
  const codePoints = [...prefix]
  while (codePoints.length > 0) {
    const last = (codePoints.pop() as string).codePointAt(0) as number
    // The next code point, skipping the surrogate block, which no string contains alone.
    const next = last + 1 === 0xd800 ? 0xe000 : last + 1
    if (next <= 0x10ffff)
      return { from: prefix, below: codePoints.join('') + String.fromCodePoint(next) }
  }
  return { from: prefix, below: undefined }
}
