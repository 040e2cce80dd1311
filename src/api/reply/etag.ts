import type { VersionCondition } from '../../domain/common/version.js'

/** A strong entity tag for a version number. */
export function etagOf(version: number): string {
  return `"${version}"`
}

interface EntityTag {
  readonly weak: boolean
  readonly opaque: string
}

/** `*`, or the well-formed tags of a comma-separated list; malformed entries match nothing. */
function parseEntityTags(header: string): '*' | EntityTag[] {
  if (header.trim() === '*') return '*'
  const tags: EntityTag[] = []
  for (const match of header.matchAll(/\s*(W\/)?("[^"]*")\s*(?:,|$)/g)) {
    tags.push({ weak: match[1] !== undefined, opaque: match[2] as string })
  }
  return tags
}

/** If-Match as the domain's expectation of a version (strong comparison); undefined when absent. */
export function ifMatchCondition(header: string | undefined): VersionCondition | undefined {
  if (header === undefined) return undefined
  const tags = parseEntityTags(header)
  return {
    matches: (version) =>
      tags === '*' || tags.some((tag) => !tag.weak && tag.opaque === etagOf(version)),
  }
}

/** Does If-None-Match name the current tag (weak comparison)? Then GET answers 304. */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  const tags = parseEntityTags(header)
  return tags === '*' || tags.some((tag) => tag.opaque === etag)
}
