import type { ExecutedQuery } from '../../src/infra/db/create-database.js'
import { loadSqliteDriver } from '../../src/infra/db/sqlite/sqlite-driver.js'
import type { IsolatedDatabase } from './databases.js'

/**
 * The plan the database chooses for a query the service ran, as text. On PostgreSQL seq
 * scans are discouraged, as the planner would at scale on these tiny test tables; with
 * `walk`, sorting too, as the service's index walks say (EngineTraits.indexWalk).
 */
export async function explainQuery(
  isolated: IsolatedDatabase,
  query: ExecutedQuery,
  { walk = false } = {},
): Promise<string> {
  if (isolated.config.kind === 'sqlite') {
    const Sqlite = await loadSqliteDriver()
    const db = new Sqlite(isolated.config.file, { readonly: true })
    try {
      const rows = db.prepare(`explain query plan ${query.sql}`).all(...query.parameters) as {
        detail: string
      }[]
      return rows.map((row) => row.detail).join('\n')
    } finally {
      db.close()
    }
  }
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: isolated.directUrl })
  await client.connect()
  try {
    await client.query('set enable_seqscan = off')
    if (walk) await client.query('set enable_sort = off')
    const result = await client.query(`explain ${query.sql}`, [...query.parameters])
    return result.rows.map((row: Record<string, string>) => Object.values(row)[0] ?? '').join('\n')
  } finally {
    await client.end()
  }
}
