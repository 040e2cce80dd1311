/**
 * The broad member searches every measurement of the search uses (npm run bench,
 * bench:explain, test/http/bounded-work.chaos.test.ts): five one-letter prefixes, which match
 * 10 to 20% of the members that load-members.ts makes, six sorts, and the first, middle
 * and last page of each: 90 searches, in 18 classes of sort and page.
 */

export const BROAD_PREFIXES = ['J', 'M', 'S', 'K', 'T'] as const

/** Each sort as the query sends it: none, one key, a name key, two keys, two keys the index lacks. */
export const SEARCH_SORTS = {
  'no sort': '',
  firstName: '&sort=firstName',
  'lastName,desc': '&sort=lastName,desc',
  'dateOfBirth,desc firstName': '&sort=dateOfBirth,desc&sort=firstName',
  'createdAt,desc': '&sort=createdAt,desc',
  'emailAddress lastModifiedAt,desc': '&sort=emailAddress&sort=lastModifiedAt,desc',
} as const

export type SortName = keyof typeof SEARCH_SORTS
export type PagePosition = 'first' | 'middle' | 'last'
export const PAGE_POSITIONS: readonly PagePosition[] = ['first', 'middle', 'last']
export const PAGE_SIZE = 20

export interface BroadSearch {
  readonly prefix: string
  readonly sort: SortName
  readonly position: PagePosition
  /** The request target, e.g. `/api/v1/members?name=J&size=20&page=2551&sort=firstName`. */
  readonly path: string
}

/** The page number of each position, for a search with `totalPages` pages. */
export function pageAt(position: PagePosition, totalPages: number): number {
  if (position === 'first') return 0
  return position === 'middle' ? Math.floor(totalPages / 2) : Math.max(totalPages - 1, 0)
}

/** The 90 searches, given how many pages each prefix has (its totalPages at PAGE_SIZE). */
export function broadSearches(totalPagesOf: (prefix: string) => number): BroadSearch[] {
  return BROAD_PREFIXES.flatMap((prefix) =>
    (Object.keys(SEARCH_SORTS) as SortName[]).flatMap((sort) =>
      PAGE_POSITIONS.map((position) => ({
        prefix,
        sort,
        position,
        path: `/api/v1/members?name=${prefix}&size=${PAGE_SIZE}&page=${pageAt(position, totalPagesOf(prefix))}${SEARCH_SORTS[sort]}`,
      })),
    ),
  )
}

/** The first page of a prefix's search: its totalPages tells where the others are. */
export const firstPagePath = (prefix: string) => `/api/v1/members?name=${prefix}&size=${PAGE_SIZE}`
