import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { inject } from 'vitest'
import type { DatabaseConfig } from '../../src/config/settings.js'
import {
  createDatabase,
  type Database,
  type DatabaseOptions,
} from '../../src/infra/db/create-database.js'
import { loadSqliteDriver } from '../../src/infra/db/sqlite/sqlite-driver.js'
import { MIGRATIONS } from '../../src/resources/index.js'

/**
 * The databases every storage-touching suite runs against: SQLite always, PostgreSQL
 * when TEST_DATABASE_URL is set (CI sets it). Each suite gets its own SQLite file or
 * its own PostgreSQL schema, dropped afterwards, so runs never collide. With
 * TEST_PGBOUNCER=1 the global setup starts PgBouncer in transaction mode and the service
 * reaches PostgreSQL through it; the tests' own sessions stay direct.
 */
export interface IsolatedDatabase {
  readonly config: DatabaseConfig
  /** Runs SQL against the same database, outside the service (to break or inspect it). */
  exec(sql: string): Promise<void>
  /** The rows of one query against the same database, outside the service. */
  query<Row = Record<string, unknown>>(sql: string): Promise<Row[]>
  /** PostgreSQL: a URL of the same schema, straight to the server, for a session of a test's own. */
  readonly directUrl?: string
  drop(): Promise<void>
}

export interface DatabaseTarget {
  readonly name: 'sqlite' | 'postgres'
  readonly available: boolean
  create(): Promise<IsolatedDatabase>
}

export const POSTGRES_URL = process.env.TEST_DATABASE_URL

/** PgBouncer's address when the global setup started one (TEST_PGBOUNCER=1). */
function poolerUrl(): string | undefined {
  try {
    return inject('poolerUrl')
  } catch {
    return undefined // not in a vitest worker
  }
}

/** `base` with its sessions in `schema` (the service's `options=-c search_path=…`). */
export function inSchema(base: string, schema: string): string {
  const url = new URL(base)
  url.searchParams.set('options', `-c search_path=${schema}`)
  return url.toString()
}

async function createSqlite(): Promise<IsolatedDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'api-test-'))
  const file = join(dir, 'api.sqlite')
  return {
    config: { kind: 'sqlite', file },
    exec: async (sql) => {
      const Sqlite = await loadSqliteDriver()
      const db = new Sqlite(file)
      try {
        db.exec(sql)
      } finally {
        db.close()
      }
    },
    query: async <Row>(sql: string) => {
      const Sqlite = await loadSqliteDriver()
      const db = new Sqlite(file, { readonly: true, fileMustExist: true })
      try {
        return db.prepare(sql).all() as Row[]
      } finally {
        db.close()
      }
    },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  }
}

async function createPostgres(): Promise<IsolatedDatabase> {
  const baseUrl = POSTGRES_URL as string
  const schema = `test_${process.pid}_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: baseUrl })
  await admin.connect()
  await admin.query(`create schema ${schema}`)
  const pooler = poolerUrl()
  const directUrl = inSchema(baseUrl, schema)
  return {
    config: pooler
      ? { kind: 'postgres', url: inSchema(pooler, schema), poolMax: 10, pooler: 'transaction' }
      : { kind: 'postgres', url: directUrl, poolMax: 10, pooler: 'none' },
    directUrl,
    exec: async (sql) => {
      await admin.query(`set search_path to ${schema}`)
      await admin.query(sql)
    },
    query: async <Row>(sql: string) => {
      await admin.query(`set search_path to ${schema}`)
      return (await admin.query(sql)).rows as Row[]
    },
    drop: async () => {
      await admin.query(`drop schema if exists ${schema} cascade`)
      await admin.end()
    },
  }
}

export const SQLITE_TARGET: DatabaseTarget = {
  name: 'sqlite',
  available: true,
  create: createSqlite,
}
export const POSTGRES_TARGET: DatabaseTarget = {
  name: 'postgres',
  available: POSTGRES_URL !== undefined,
  create: createPostgres,
}
export const DATABASES: readonly DatabaseTarget[] = [SQLITE_TARGET, POSTGRES_TARGET]

/** The database opened as the application opens it: every resource's migrations applied. */
export function openDatabase(
  config: DatabaseConfig,
  options: Omit<DatabaseOptions, 'migrations'> = {},
): Promise<Database> {
  return createDatabase(config, { migrations: MIGRATIONS, ...options })
}

/**
 * Opens (and so migrates) the database in a separate Node process, as another instance
 * of the service would, with every resource's migrations; resolves to its exit code.
 */
export function migrateInChildProcess(config: DatabaseConfig): Promise<number> {
  const script = `
    const { createDatabase } = await import('./src/infra/db/create-database.ts')
    const { MIGRATIONS } = await import('./src/resources/index.ts')
    const database = await createDatabase(${JSON.stringify(config)}, { migrations: MIGRATIONS })
    await database.close()`
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    )
    child.on('error', reject)
    child.on('exit', (code) => resolve(code ?? -1))
  })
}
