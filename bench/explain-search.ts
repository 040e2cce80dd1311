/**
 * Shows how the member search runs on a loaded database (bench/load-members.ts): for the
 * narrow search and each class of broad search (bench/broad-searches.ts: sort and page,
 * here for one prefix), every statement the repository issues, its time and its plan.
 *
 *   npx tsx bench/explain-search.ts [--database-url postgres://...|sqlite:PATH] [--prefix M]
 */
import { parseArgs } from 'node:util'
import { type Kysely, sql } from 'kysely'
import { loadConfig } from '../src/config/settings.js'
import {
  createDatabase,
  type Database,
  type ExecutedQuery,
} from '../src/infra/db/create-database.js'
import { MIGRATIONS } from '../src/resources/index.js'
import type { MemberSearch, SortOrder } from '../src/resources/member/domain/model.js'
import { KyselyMemberRepository } from '../src/resources/member/infra/member-repository.js'
import { MemberSearchQueries } from '../src/resources/member/infra/member-search.js'
import { PAGE_POSITIONS, PAGE_SIZE, pageAt, SEARCH_SORTS, type SortName } from './broad-searches.js'
import { SEARCH_PREFIX } from './load-members.js'

/** A sort of broad-searches.ts as the domain's orders. */
function ordersOf(sort: SortName): SortOrder[] {
  return [...new URLSearchParams(SEARCH_SORTS[sort]).getAll('sort')].map((value) => {
    const [property, direction] = value.split(',')
    return {
      property: property as SortOrder['property'],
      direction: direction === 'desc' ? 'DESC' : 'ASC',
    }
  })
}

/** The plan of a statement as its search ran it: in a read-only transaction, walks told so. */

/** The member repository, as the service builds it. */
function membersOf(database: Database) {
  return new KyselyMemberRepository(database, {
    searches: new MemberSearchQueries(database.engine),
  })
}

async function plan(database: Database, query: ExecutedQuery): Promise<string> {
  const postgres = database.engine.kind === 'postgres'
  const explain = postgres ? 'explain (analyze, buffers off)' : 'explain query plan'
  const walking = /order by/i.test(query.sql) && !/union all/i.test(query.sql)
  const run = async (db: Kysely<unknown>) => {
    if (walking && database.engine.indexWalk.setup)
      await database.engine.indexWalk.setup.execute(db)
    const { rows } = await db.executeQuery({
      ...sql.raw(`${explain} ${query.sql}`).compile(db),
      parameters: query.parameters,
    })
    return rows.map((row) => {
      const values = Object.values(row as Record<string, unknown>)
      return `    ${String(postgres ? values[0] : values.at(-1))}`
    })
  }
  const lines = await database.db
    .transaction()
    .execute((trx) => run(trx as unknown as Kysely<unknown>))
  return lines.join('\n')
}

async function explainSearch(
  database: Database,
  queries: ExecutedQuery[],
  label: string,
  search: MemberSearch,
  page: number,
): Promise<void> {
  const members = membersOf(database)
  await members.search(search, { page, size: PAGE_SIZE })
  queries.length = 0
  const started = performance.now()
  const { total } = await members.search(search, { page, size: PAGE_SIZE })
  const issued = [...queries]
  console.log(
    `\n## ${label}: page ${page} of ${total} matches in ${(performance.now() - started).toFixed(1)} ms`,
  )
  for (const query of issued.filter((issued) => /^\s*select/i.test(issued.sql))) {
    console.log(
      `\n  ${query.durationMs.toFixed(1)} ms: ${query.sql}\n${await plan(database, query)}`,
    )
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { 'database-url': { type: 'string' }, prefix: { type: 'string', default: 'M' } },
  })
  const config = loadConfig({
    DATABASE_URL: values['database-url'] ?? process.env.DATABASE_URL ?? '',
  })
  const queries: ExecutedQuery[] = []
  const database = await createDatabase(config.database, {
    migrations: MIGRATIONS,
    onQuery: (query) => queries.push(query),
  })
  try {
    await explainSearch(
      database,
      queries,
      `narrow: ${SEARCH_PREFIX}`,
      {
        namePrefix: SEARCH_PREFIX,
        sort: [],
      },
      0,
    )
    const prefix = values.prefix as string
    const { total } = await membersOf(database).search(
      { namePrefix: prefix, sort: [] },
      { page: 0, size: PAGE_SIZE },
    )
    for (const sort of Object.keys(SEARCH_SORTS) as SortName[]) {
      for (const position of PAGE_POSITIONS) {
        const page = pageAt(position, Math.ceil(total / PAGE_SIZE))
        await explainSearch(
          database,
          queries,
          `${prefix}, ${sort} / ${position}`,
          {
            namePrefix: prefix,
            sort: ordersOf(sort),
          },
          page,
        )
      }
    }
  } finally {
    await database.close()
  }
}

await main()
