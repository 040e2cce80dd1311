import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MIGRATION_LOCK_CLASS } from '../../src/infra/db/postgres/migration-lock.js'
import { loadSqliteDriver } from '../../src/infra/db/sqlite/sqlite-driver.js'
import { MIGRATIONS } from '../../src/resources/index.js'
import { DATABASES, type IsolatedDatabase, POSTGRES_TARGET } from '../helpers/databases.js'
import {
  type CommandOutcome,
  databaseSettingsOf,
  expectOneLine,
  FROM_BUILD,
  killLeftoverProcesses,
  runBuilt,
  startServerProcess,
} from '../helpers/process.js'

/**
 * `node dist/server.js migrate` (src/migrate-command.ts), run as deploy/kubernetes.yaml's
 * init container runs it: the built server, configured only by the environment. It
 * applies what the database lacks and says so in one line; a second run, or a start
 * after it, applies nothing; runs at once apply each migration once between them (the
 * migration lock); a run waits for a migration in progress elsewhere as long as
 * DB_TIMEOUT lets it; and it fails in the very words a start fails in.
 */

const PROCESS_TEST = { timeout: 60_000 }
const NAMES = Object.keys(MIGRATIONS)
const TOTAL = NAMES.length
const MIGRATED = new RegExp(
  `^Migrated DATABASE_URL \\((.+)\\): (none pending|applied (.+)) in \\d+ ms; migrations ${TOTAL} of ${TOTAL}\\.$`,
)
/** How long a test holds the migrations back, as another instance's long migration would. */
const HOLD_MS = 2_500

/** The migrations a run applied, read from its one line; it exited 0 and printed no more. */
function appliedBy(outcome: CommandOutcome): string[] {
  expect(outcome.status, outcome.stderr).toBe(0)
  expect(outcome.stderr).toBe('')
  const lines = outcome.stdout.trim().split('\n')
  expect(lines).toHaveLength(1)
  const match = MIGRATED.exec(lines[0] as string)
  expect(match, lines[0]).not.toBeNull()
  return match?.[3]?.split(', ') ?? []
}

async function recorded(database: IsolatedDatabase) {
  return database.query<{ name: string; timestamp: string }>(
    'select name, timestamp from kysely_migration order by name',
  )
}

/** Holds the migrations back until `release` (another instance migrating, for the runs). */
async function holdMigrations(database: IsolatedDatabase): Promise<{ release(): Promise<void> }> {
  const { config } = database
  if (config.kind === 'sqlite') {
    // The write lock, which the migration runner takes first (BEGIN IMMEDIATE).
    const Sqlite = await loadSqliteDriver()
    const connection = new Sqlite(config.file)
    connection.exec('begin immediate')
    return {
      release: async () => {
        connection.exec('commit')
        connection.close()
      },
    }
  }
  // The advisory lock itself, in a transaction, as an instance that migrates holds it.
  await database.exec('begin')
  await database.exec(
    `select pg_advisory_xact_lock(${MIGRATION_LOCK_CLASS}, hashtext(current_schema()))`,
  )
  return { release: () => database.exec('commit') }
}

describe.each(DATABASES)('node dist/server.js migrate on $name', (target) => {
  let database: IsolatedDatabase | undefined
  let settings: Record<string, string> = {}

  beforeEach(async () => {
    if (!target.available) return
    database = await target.create()
    settings = databaseSettingsOf(database.config)
  }, PROCESS_TEST.timeout)
  afterEach(async () => {
    await killLeftoverProcesses()
    await database?.drop()
  })

  it.skipIf(!target.available)(
    'applies every migration once, then none; a start after it applies none and serves',
    PROCESS_TEST,
    async () => {
      const db = database as IsolatedDatabase
      expect(appliedBy(await runBuilt(['migrate'], settings))).toEqual(NAMES)
      const after = await recorded(db)
      expect(after.map(({ name }) => name)).toEqual(NAMES)

      expect(appliedBy(await runBuilt(['migrate'], settings))).toEqual([])
      const server = await startServerProcess(db.config, {}, { entry: FROM_BUILD })
      expect((await server.request('GET', '/health/ready')).status).toBe(200)
      server.kill('SIGTERM')
      expect((await server.exited).code).toBe(0)
      expect(await recorded(db)).toEqual(after)
    },
  )

  it.skipIf(!target.available)(
    'run three at once: between them each migration is applied exactly once',
    PROCESS_TEST,
    async () => {
      const runs = await Promise.all([1, 2, 3].map(() => runBuilt(['migrate'], settings)))
      const applied = runs.flatMap(appliedBy)
      expect(applied.toSorted()).toEqual(NAMES)
      expect((await recorded(database as IsolatedDatabase)).map(({ name }) => name)).toEqual(NAMES)
    },
  )

  it.skipIf(!target.available)(
    'waits its turn behind a migration in progress elsewhere, and not once migrated',
    PROCESS_TEST,
    async () => {
      const db = database as IsolatedDatabase
      const held = await holdMigrations(db)
      const started = performance.now()
      // PostgreSQL waits for as long as the lock is held; SQLite for DB_TIMEOUT at most.
      const waiting = runBuilt(['migrate'], { ...settings, DB_TIMEOUT: String(HOLD_MS * 8) })
      setTimeout(() => void held.release(), HOLD_MS)
      expect(appliedBy(await waiting)).toEqual(NAMES)
      expect(performance.now() - started).toBeGreaterThan(HOLD_MS)

      // Migrated: no run takes the lock, however long another holds it.
      const again = await holdMigrations(db)
      try {
        expect(appliedBy(await runBuilt(['migrate'], { ...settings, DB_TIMEOUT: '500' }))).toEqual(
          [],
        )
      } finally {
        await again.release()
      }
    },
  )

  it.skipIf(target.name !== 'postgres')(
    'does not wait for a migration of another schema of the database',
    PROCESS_TEST,
    async () => {
      const other = await target.create()
      const held = await holdMigrations(other)
      try {
        // Were it the same lock, the run would wait until runBuilt kills it.
        expect(appliedBy(await runBuilt(['migrate'], settings))).toEqual(NAMES)
      } finally {
        await held.release()
        await other.drop()
      }
    },
  )

  it.skipIf(target.name !== 'sqlite')(
    'fails past DB_TIMEOUT behind SQLite’s write lock, saying another instance migrates',
    PROCESS_TEST,
    async () => {
      const held = await holdMigrations(database as IsolatedDatabase)
      try {
        expectOneLine(
          await runBuilt(['migrate'], { ...settings, DB_TIMEOUT: '500' }),
          /^Could not start: DATABASE_URL \(/,
          /database is locked \[SQLITE_BUSY\]/,
          /Fix: another instance is migrating the database/,
        )
      } finally {
        await held.release()
      }
    },
  )
})

describe.skipIf(!POSTGRES_TARGET.available)('node dist/server.js migrate with a replica', () => {
  let database: IsolatedDatabase | undefined
  afterAll(async () => database?.drop())

  it(
    'migrates the primary while the replica is down: a replica is only read',
    PROCESS_TEST,
    async () => {
      database = await POSTGRES_TARGET.create()
      const outcome = await runBuilt(['migrate'], {
        ...databaseSettingsOf(database.config),
        DATABASE_READ_URL: 'postgres://replica@127.0.0.1:1/app',
      })
      expect(appliedBy(outcome)).toEqual(NAMES)
    },
  )
})

describe('node dist/server.js migrate that cannot', () => {
  afterAll(killLeftoverProcesses)

  it('fails in the words of a start that fails, with the same settings', async () => {
    const settings = { DATABASE_URL: 'postgres://app:secret@127.0.0.1:1/app' }
    const migrating = await runBuilt(['migrate'], settings)
    const starting = await runBuilt([], { ...settings, HOST: '127.0.0.1', PORT: '0' })
    expectOneLine(
      migrating,
      /^Could not start: DATABASE_URL \(postgres:\/\/app@127\.0\.0\.1:1\/app\): /,
      /ECONNREFUSED.*Fix: start PostgreSQL there/,
    )
    expect(migrating.stderr).toBe(starting.stderr)
    expect(migrating.stdout).toBe('')
  })

  it('takes no argument, and is named among the commands', async () => {
    expectOneLine(
      await runBuilt(['migrate', 'now'], {}),
      /^migrate takes no argument\. Use: node dist\/server\.js migrate, /,
    )
    expectOneLine(await runBuilt(['migrat'], {}), /^Unknown command "migrat"\. Use: .*migrate/)
    const help = await runBuilt(['--help'], {})
    expect(help.stdout).toMatch(/^ {2}node dist\/server\.js migrate {8}applies the migrations/m)
  })
})
