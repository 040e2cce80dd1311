/**
 * What migration 0004 (seven indexes built on member, two dropped) does to writes on
 * PostgreSQL: the concurrent build of this release, and the build in the migrations'
 * transaction that releases before it ran, each on a schema of its own holding `members`
 * generated members, while writers update and insert members without pause.
 *
 *   npx tsx bench/migration-under-writes.ts --members 1000000 [--writers 2] \
 *     [--database-url postgres://postgres@127.0.0.1:5432/test] [--only concurrent|blocking]
 *
 * Prints, per build: its time, the writes in flight during it, and their p50, p99 and
 * longest time. Each schema is dropped afterwards. Not a CI test: loading a million
 * members takes about a minute per schema; test/storage/online-indexes.test.ts runs the
 * same measurement at a size a test can afford.
 */
import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import pg from 'pg'
import type { DatabaseConfig } from '../src/config/settings.js'
import { createDatabase } from '../src/infra/db/create-database.js'
import { indexChangesInTransaction } from '../src/infra/db/index-changes.js'
import type { Migrations } from '../src/infra/db/migrate.js'
import { MIGRATIONS } from '../src/resources/index.js'
import { MEMBER_SEARCH_INDEXES } from '../src/resources/member/infra/migrations/0004-member-search-indexes.js'
import { LOADING_TIMEOUT_MS, loadMembers } from './load-members.js'
import { startMemberWrites, type WritesDuring, writesDuring } from './member-writes.js'

const SEARCH_INDEXES = '0004-member-search-indexes'

/** Every migration before 0004: the schema 0004 finds. */
export const BEFORE_SEARCH_INDEXES: Migrations = Object.fromEntries(
  Object.entries(MIGRATIONS).filter(([name]) => name < SEARCH_INDEXES),
)

/** The builds compared: this release's migrations, and the same with 0004 as it ran before. */
export const BUILDS = {
  concurrent: MIGRATIONS,
  blocking: {
    ...MIGRATIONS,
    [SEARCH_INDEXES]: () => indexChangesInTransaction(MEMBER_SEARCH_INDEXES),
  },
} as const satisfies Record<string, Migrations>

export interface MigrationUnderWrites {
  /** From the start of the migrating instance's database to its end. */
  readonly buildMs: number
  /** The writes in flight during the build. */
  readonly during: WritesDuring
  /** The writes of as long a time before it: what a write costs here anyway. */
  readonly before: WritesDuring
}

export interface MeasureOptions {
  /** How the migrating instance connects (directly or through a pooler). */
  readonly config: DatabaseConfig
  /** The same schema, directly: for the loading and the writers. */
  readonly directUrl: string
  readonly members: number
  readonly writers: number
  readonly migrations: Migrations
  readonly log?: (line: string) => void
}

/** How long the writers run before the migration starts, and after it ends. */
const SETTLE_MS = 500

/**
 * Brings the schema of `directUrl` to migration 0003 and loads `members` generated
 * members: directly, as loading ends with a VACUUM, which a transaction pooler's
 * transactions cannot run.
 */
export async function loadBeforeSearchIndexes(
  directUrl: string,
  members: number,
  log: (line: string) => void = () => undefined,
): Promise<void> {
  const loading = await createDatabase(
    { kind: 'postgres', url: directUrl, poolMax: 2, pooler: 'none' },
    { migrations: BEFORE_SEARCH_INDEXES, timeoutMs: LOADING_TIMEOUT_MS },
  )
  try {
    await loadMembers(loading, members, log)
  } finally {
    await loading.close()
  }
}

/** Loads `members` onto a schema of 0001-0003, then migrates it while members are written. */
export async function measureMigrationUnderWrites(
  options: MeasureOptions,
): Promise<MigrationUnderWrites> {
  await loadBeforeSearchIndexes(options.directUrl, options.members, options.log)
  const writes = await startMemberWrites({
    url: options.directUrl,
    members: options.members,
    writers: options.writers,
    maxWrites: 1_000_000,
  })
  try {
    await sleep(SETTLE_MS)
    const fromMs = performance.now()
    const migrated = await createDatabase(options.config, { migrations: options.migrations })
    const toMs = performance.now()
    await migrated.close()
    await sleep(SETTLE_MS)
    const timed = await writes.stop()
    const buildMs = toMs - fromMs
    return {
      buildMs,
      during: writesDuring(timed, fromMs, toMs),
      before: writesDuring(timed, fromMs - Math.min(buildMs, SETTLE_MS), fromMs),
    }
  } catch (error) {
    await writes.stop().catch(() => undefined)
    throw error
  }
}

const ms = (value: number) => `${Math.round(value)} ms`

export function describeMeasurement(name: string, result: MigrationUnderWrites): string {
  const { during, before } = result
  return [
    `${name}: build ${ms(result.buildMs)}; ${during.writes} writes during it`,
    `(${during.completedInside} sent and answered inside it),`,
    `p50 ${ms(during.p50Ms)}, p99 ${ms(during.p99Ms)}, max ${ms(during.maxMs)};`,
    `before it p50 ${ms(before.p50Ms)}, max ${ms(before.maxMs)}`,
  ].join(' ')
}

function inSchema(base: string, schema: string): string {
  const url = new URL(base)
  url.searchParams.set('options', `-c search_path=${schema}`)
  return url.toString()
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      members: { type: 'string', default: '1000000' },
      writers: { type: 'string', default: '2' },
      'database-url': { type: 'string' },
      only: { type: 'string' },
    },
  })
  const base =
    values['database-url'] ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  const members = Number(values.members)
  const writers = Number(values.writers)
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  try {
    for (const [name, migrations] of Object.entries(BUILDS)) {
      if (values.only !== undefined && values.only !== name) continue
      const schema = `bench_migration_${name}_${randomBytes(3).toString('hex')}`
      await admin.query(`create schema ${schema}`)
      try {
        const url = inSchema(base, schema)
        console.log(`${name}: loading ${members} members into ${schema}`)
        const result = await measureMigrationUnderWrites({
          config: { kind: 'postgres', url, poolMax: 10, pooler: 'none' },
          directUrl: url,
          members,
          writers,
          migrations,
          log: (line) => console.log(line),
        })
        console.log(describeMeasurement(name, result))
      } finally {
        await admin.query(`drop schema ${schema} cascade`)
      }
    }
  } finally {
    await admin.end()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
