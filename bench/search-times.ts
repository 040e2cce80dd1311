/**
 * The searches alone, one at a time: the narrow one and the 90 broad ones, at 10,000
 * members and at LARGE, after every load is over.
 */
import { BROAD_PREFIXES, broadSearches, firstPagePath } from './broad-searches.js'
import { SEARCH_PREFIX } from './load-members.js'
import { median, type Running } from './processes.js'
import { LARGE } from './run-options.js'

/** Each search is asked this many times per round, one at a time. */
const SEARCH_REPEATS = 2

/** The time of one GET, from sending it to the last byte of its answer. */
async function timedGet(target: Running, path: string): Promise<number> {
  const started = performance.now()
  const response = await fetch(`${target.base}${path}`)
  await response.arrayBuffer()
  if (response.status !== 200) throw new Error(`${path}: ${response.status}`)
  return performance.now() - started
}

/**
 * The narrow search and the 90 broad ones (bench/broad-searches.ts), each asked alone,
 * in milliseconds by class: `narrow` (SEARCH_PREFIX, 100 matches) and `sort / page`.
 */
async function searchTimes(target: Running): Promise<Map<string, number[]>> {
  const pages = new Map<string, number>()
  for (const prefix of BROAD_PREFIXES) {
    const first = await fetch(`${target.base}${firstPagePath(prefix)}`)
    pages.set(prefix, ((await first.json()) as { totalPages: number }).totalPages)
  }
  const times = new Map<string, number[]>()
  const add = (key: string, ms: number) => times.set(key, [...(times.get(key) ?? []), ms])
  for (let repeat = 0; repeat < SEARCH_REPEATS; repeat += 1) {
    add('narrow', await timedGet(target, `/api/v1/members?name=${SEARCH_PREFIX}&size=20`))
    for (const search of broadSearches((prefix) => pages.get(prefix) ?? 0)) {
      add(`${search.sort} / ${search.position}`, await timedGet(target, search.path))
    }
  }
  return times
}

export interface SearchRow {
  readonly database: string
  readonly query: string
  /** Median and slowest, at 10,000 members and at LARGE. */
  readonly small: { p50: number; max: number }
  readonly large: { p50: number; max: number }
}

function searchRows(
  database: string,
  small: Map<string, number[]>,
  large: Map<string, number[]>,
): SearchRow[] {
  const figures = (values: readonly number[] = []) => ({
    p50: median([...values]),
    max: Math.max(...values),
  })
  return [...large.keys()].map((query) => ({
    database,
    query,
    small: figures(small.get(query)),
    large: figures(large.get(query)),
  }))
}

export function printSearchTable(rows: readonly SearchRow[]): string {
  const ms = (value: number) => value.toFixed(1)
  return [
    `| Database | Search (sort / page) | 10,000 members p50 / max ms | ${LARGE.toLocaleString('en')} members p50 / max ms | Growth (p50) |`,
    '|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.database} | ${row.query} | ${ms(row.small.p50)} / ${ms(row.small.max)} | ` +
        `${ms(row.large.p50)} / ${ms(row.large.max)} | ${(row.large.p50 / row.small.p50).toFixed(1)}x |`,
    ),
  ].join('\n')
}

/** The searches alone, at both sizes, once every load is over. */
export async function measureSearches(
  database: string,
  small: Running,
  large: Running | undefined,
): Promise<SearchRow[]> {
  if (!large) return []
  console.log(`Searches alone, ${database}`)
  const [smallTimes, largeTimes] = [await searchTimes(small), await searchTimes(large)]
  return searchRows(database, smallTimes, largeTimes)
}
