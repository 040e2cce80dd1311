/**
 * Shows how the member search runs on a loaded database: the plan of every query the
 * repository issues, and the time of repeated searches for prefixes of different reach.
 *
 *   npx tsx bench/explain-search.ts [--database-url postgres://...|sqlite:PATH] [--runs 50]
 */
import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import { loadConfig } from '../src/config.js'
import type { MemberSearch } from '../src/domain/member/model.js'
import {
  createDatabase,
  type Database,
  type ExecutedQuery,
} from '../src/infra/db/create-database.js'
import { KyselyMemberRepository } from '../src/infra/member/member-repository.js'

const PREFIXES = ['Benchmark', 'J', 'Hiro', 'Kamo']

async function plan(database: Database, query: ExecutedQuery): Promise<string> {
  const analyze =
    database.profile.kind === 'postgres' ? 'explain (analyze, buffers off)' : 'explain query plan'
  const statement = sql.raw(`${analyze} ${query.sql}`)
  const { rows } = await database.db.executeQuery({
    ...statement.compile(database.db),
    parameters: query.parameters,
  })
  return rows
    .map((row) => {
      const values = Object.values(row as Record<string, unknown>)
      return String(database.profile.kind === 'postgres' ? values[0] : values.at(-1))
    })
    .join('\n')
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { 'database-url': { type: 'string' }, runs: { type: 'string', default: '50' } },
  })
  const config = loadConfig({
    DATABASE_URL: values['database-url'] ?? process.env.DATABASE_URL ?? '',
  })
  const queries: ExecutedQuery[] = []
  const database = await createDatabase(config.database, {
    onQuery: (query) => queries.push(query),
  })
  const repository = new KyselyMemberRepository(database.db)
  const runs = Number(values.runs)
  try {
    for (const namePrefix of PREFIXES) {
      const search: MemberSearch = { namePrefix, sort: [] }
      queries.length = 0
      const first = await repository.search(search, { page: 0, size: 20 })
      const issued = [...queries]
      const times: number[] = []
      for (let run = 0; run < runs; run += 1) {
        const started = performance.now()
        await repository.search(search, { page: 0, size: 20 })
        times.push(performance.now() - started)
      }
      times.sort((a, b) => a - b)
      console.log(
        `\n## name=${namePrefix}: ${first.total} matches; page of 20 in ` +
          `p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms (${runs} runs)`,
      )
      for (const query of issued) {
        console.log(`\n${query.sql}\n${await plan(database, query)}`)
      }
    }
  } finally {
    await database.close()
  }
}

await main()
