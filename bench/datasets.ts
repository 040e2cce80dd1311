/**
 * The databases the bench measures on: generated members and one Todo, made once in
 * data/bench (or a PostgreSQL schema) and reused by later runs.
 */
import pg from 'pg'
import type { DatabaseConfig } from '../src/config/settings.js'
import { loadConfig } from '../src/config/settings.js'
import { createDatabase } from '../src/infra/db/create-database.js'
import { MIGRATIONS } from '../src/resources/index.js'
import { LOADING_TIMEOUT_MS, loadMembers, memberIdOf, SEARCH_COHORT } from './load-members.js'
import { PG_URL } from './run-options.js'

/** How the addresses of the members the bench POSTs begin; generated ones begin `member`. */
export const POSTED_ADDRESS_PREFIX = 'bench-'

export interface Dataset {
  readonly config: DatabaseConfig
  readonly todoId: string
  readonly memberId: string
}

/**
 * A database with `members` generated members and one Todo; created once, reused after.
 * The members an earlier run POSTed (`memberBody`'s addresses) are removed, so that
 * every run starts from the same rows.
 */
export async function dataset(config: DatabaseConfig, members: number): Promise<Dataset> {
  const database = await createDatabase(config, {
    migrations: MIGRATIONS,
    timeoutMs: LOADING_TIMEOUT_MS,
  })
  try {
    await loadMembers(database, members, (line) => console.log(`   ${line.trim()}`))
    await database.db
      .deleteFrom('member')
      .where('email_address', 'like', `${POSTED_ADDRESS_PREFIX}%`)
      .execute()
    let todo = await database.db.selectFrom('todo').select('todo_id').executeTakeFirst()
    if (!todo) {
      await database.db
        .insertInto('todo')
        .values({
          todo_id: '01a20114-a9e4-73d1-b63d-c583549b3710',
          todo_title: 'Buy milk',
          created_at: new Date().toISOString(),
        })
        .execute()
      todo = { todo_id: '01a20114-a9e4-73d1-b63d-c583549b3710' }
    }
    return { config, todoId: todo.todo_id, memberId: memberIdOf(SEARCH_COHORT + 1) }
  } finally {
    await database.close()
  }
}

export async function postgresSchema(name: string): Promise<DatabaseConfig> {
  const admin = new pg.Client({ connectionString: PG_URL })
  await admin.connect()
  await admin.query(`create schema if not exists ${name}`)
  await admin.end()
  const url = new URL(PG_URL as string)
  url.searchParams.set('options', `-c search_path=${name}`)
  return loadConfig({ DATABASE_URL: url.toString() }).database
}
