import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { loadSqliteDriver } from '../../src/infra/db/sqlite/sqlite-driver.js'
import {
  DATABASES,
  type DatabaseTarget,
  type IsolatedDatabase,
  inSchema,
  POSTGRES_URL,
  SQLITE_TARGET,
} from '../helpers/databases.js'
import type { HttpResponse } from '../helpers/http.js'
import { memberCreateBody } from '../helpers/members.js'
import {
  databaseSettingsOf,
  expectOneLine,
  FROM_BUILD,
  killLeftoverProcesses,
  runBuilt,
  type ServerProcess,
  startServerProcess,
} from '../helpers/process.js'
import { postgresProgram } from '../helpers/replica.js'
import { pause } from '../helpers/time.js'

/**
 * Backup and restore (docs/operations/databases.md#backup-and-restore) on the built server, as
 * production runs it. A write load runs against the service; a backup is taken in its
 * middle (the server's `backup` command on SQLite, pg_dump on PostgreSQL), and the load
 * goes on a little after it. The backup is then restored into a fresh database (the
 * `restore` command; pg_restore into a new database) and a new service started on it:
 * every create answered 201 before the backup began reads back exactly, none sent after
 * it ended is there, no member is there without its credential, and no row is there
 * that the load did not create. The restore command's refusals are the second half.
 */

const PROCESS_TEST = { timeout: 60_000 }
const MEMBER_LOOPS = 2
const TODO_LOOPS = 4
/** How long the load runs before the backup begins, and after it has ended. */
const LOAD_BEFORE_MS = 1_500
const LOAD_AFTER_MS = 800
/** Each loop's bound, whatever the timing. */
const MAX_CREATES_PER_LOOP = 2_000
const READ_CONCURRENCY = 8
const RUN = randomBytes(3).toString('hex')
const BACKUP_LINE = /^Backed up (.+) to (.+): (\d+) bytes in (\d+) ms, integrity_check ok\.$/
const RESTORE_LINE =
  /^Restored (.+) from (.+): (\d+) bytes in (\d+) ms, integrity_check ok, migrations (\d+) of \5\.$/
/** SQLite's default page size, which the service keeps. */
const PAGE_SIZE = 4096
const PG_DUMP = postgresProgram('pg_dump')
const PG_RESTORE = postgresProgram('pg_restore')
const run = promisify(execFile)
const Sqlite = await loadSqliteDriver()

type Kind = 'todos' | 'members'

interface Created {
  readonly kind: Kind
  readonly id: string
  /** The body of the 201, as the client received it. */
  readonly body: unknown
  /** performance.now() when the request was sent, and when its 201 arrived. */
  readonly sentAt: number
  readonly answeredAt: number
}

interface LoadOutcome {
  readonly created: Created[]
  /** Anything but a 201, or a failed request. */
  readonly unexpected: string[]
}

/** MEMBER_LOOPS + TODO_LOOPS clients creating one resource after another until stopped. */
function startWriteLoad(server: ServerProcess): { stop(): Promise<LoadOutcome> } {
  const created: Created[] = []
  const unexpected: string[] = []
  let stopped = false
  const loop = async (index: number) => {
    const kind: Kind = index < MEMBER_LOOPS ? 'members' : 'todos'
    for (let iteration = 0; iteration < MAX_CREATES_PER_LOOP && !stopped; iteration += 1) {
      const tag = `${index}.${iteration}`
      const body =
        kind === 'todos'
          ? { todoTitle: `Backup ${tag}` }
          : memberCreateBody('Backup', `Load${tag}`, `backup.${RUN}.${tag}@example.com`)
      const sentAt = performance.now()
      let response: HttpResponse
      try {
        response = await server.request('POST', `/api/v1/${kind}`, { body })
      } catch (error) {
        unexpected.push(`${kind} ${tag}: ${String(error)}`)
        continue
      }
      const answeredAt = performance.now()
      const id = (response.body as Record<string, unknown> | undefined)?.[
        kind === 'todos' ? 'todoId' : 'memberId'
      ]
      if (response.status !== 201 || typeof id !== 'string') {
        unexpected.push(`${kind} ${tag}: ${response.status} ${response.text}`)
        continue
      }
      created.push({ kind, id, body: response.body, sentAt, answeredAt })
    }
  }
  const loops = Array.from({ length: MEMBER_LOOPS + TODO_LOOPS }, (_, index) => loop(index))
  return {
    stop: async () => {
      stopped = true
      await Promise.all(loops)
      return { created, unexpected }
    },
  }
}

/** GET of each created resource through `server`, READ_CONCURRENCY at a time. */
async function readEach(
  server: ServerProcess,
  created: readonly Created[],
): Promise<Map<Created, HttpResponse>> {
  const answers = new Map<Created, HttpResponse>()
  let next = 0
  const reader = async () => {
    for (let item = created[next]; item !== undefined; item = created[next]) {
      next += 1
      answers.set(item, await server.request('GET', `/api/v1/${item.kind}/${item.id}`))
    }
  }
  await Promise.all(Array.from({ length: READ_CONCURRENCY }, reader))
  return answers
}

/** The schema a PostgreSQL suite's database lives in (its search_path). */
async function schemaOf(database: IsolatedDatabase): Promise<string> {
  const [row] = await database.query<{ schema: string }>('select current_schema() as schema')
  return row?.schema as string
}

interface TakenBackup {
  readonly file: string
  /** The backup command's line (SQLite); pg_dump says nothing. */
  readonly line: string | undefined
}

/** The documented backup of `database` into `folder`: the server's command, or pg_dump. */
async function takeBackup(database: IsolatedDatabase, folder: string): Promise<TakenBackup> {
  const { config } = database
  if (config.kind === 'sqlite') {
    const file = join(folder, 'backup.sqlite')
    const outcome = await runBuilt(['backup', file], databaseSettingsOf(config))
    expect(outcome.status, outcome.stderr).toBe(0)
    return { file, line: outcome.stdout.trim() }
  }
  const file = join(folder, 'backup.dump')
  const schema = await schemaOf(database)
  await run(PG_DUMP as string, [
    '--format=custom',
    '--no-owner',
    `--schema=${schema}`,
    `--file=${file}`,
    POSTGRES_URL as string,
  ])
  return { file, line: undefined }
}

/**
 * A fresh database holding the backup, as docs/operations/databases.md restores it: the restore
 * command into a new SQLite file; pg_restore into a new PostgreSQL database (of the
 * suite's schema, which the dump creates).
 */
async function restoreFresh(
  target: DatabaseTarget,
  backup: TakenBackup,
  schema: string | undefined,
): Promise<IsolatedDatabase> {
  if (target.name === 'sqlite') {
    const fresh = await SQLITE_TARGET.create()
    const outcome = await runBuilt(['restore', backup.file], databaseSettingsOf(fresh.config))
    expect(outcome.status, outcome.stderr).toBe(0)
    const line = outcome.stdout.trim()
    expect(line).toMatch(RESTORE_LINE)
    expect(Number(RESTORE_LINE.exec(line)?.[3])).toBe(statSync(backup.file).size)
    return fresh
  }
  const name = `restored_${process.pid}_${RUN}`
  const admin = new pg.Client({ connectionString: POSTGRES_URL })
  await admin.connect()
  await admin.query(`create database ${name}`)
  const url = new URL(POSTGRES_URL as string)
  url.pathname = `/${name}`
  await run(PG_RESTORE as string, [
    '--no-owner',
    '--single-transaction',
    `--dbname=${url.toString()}`,
    backup.file,
  ])
  const inRestored = inSchema(url.toString(), schema as string)
  const client = new pg.Client({ connectionString: inRestored })
  await client.connect()
  return {
    config: { kind: 'postgres', url: inRestored, poolMax: 10, pooler: 'none' },
    exec: async (sql) => {
      await client.query(sql)
    },
    query: async <Row>(sql: string) => (await client.query(sql)).rows as Row[],
    drop: async () => {
      await client.end()
      await admin.query(`drop database if exists ${name} with (force)`)
      await admin.end()
    },
  }
}

/** The ids of one table of the restored database. */
async function idsIn(database: IsolatedDatabase, table: string, column: string) {
  const rows = await database.query<{ id: string }>(`select ${column} as id from ${table}`)
  return rows.map((row) => row.id)
}

/** Members without their credential, and credentials without their member. */
async function halfWrittenMembers(database: IsolatedDatabase): Promise<number> {
  const [row] = await database.query<{ n: number | string }>(
    `select
       (select count(*) from member m where not exists
          (select 1 from member_credential c where c.member_id = m.member_id))
     + (select count(*) from member_credential c where not exists
          (select 1 from member m where m.member_id = c.member_id)) as n`,
  )
  return Number(row?.n)
}

for (const target of DATABASES) {
  const tools = target.name === 'sqlite' || (PG_DUMP !== undefined && PG_RESTORE !== undefined)
  if (target.available && !tools) {
    console.log('Backup suite on postgres: SKIPPED, no pg_dump/pg_restore (PostgreSQL client)')
  }
  describe.skipIf(!target.available || !tools)(`Backup and restore on ${target.name}`, () => {
    let database: IsolatedDatabase | undefined
    let restored: IsolatedDatabase | undefined
    let folder: string | undefined

    afterAll(async () => {
      await killLeftoverProcesses()
      await restored?.drop()
      await database?.drop()
      if (folder) rmSync(folder, { recursive: true, force: true })
    })

    it(
      'restores into a fresh database every create answered before a backup taken under write load, and none sent after it',
      PROCESS_TEST,
      async () => {
        database = await target.create()
        folder = mkdtempSync(join(tmpdir(), 'backup-'))
        const schema = target.name === 'postgres' ? await schemaOf(database) : undefined
        const server = await startServerProcess(database.config, {}, { entry: FROM_BUILD })
        const load = startWriteLoad(server)
        await pause(LOAD_BEFORE_MS)
        const backupStarted = performance.now()
        const backup = await takeBackup(database, folder)
        const backupEnded = performance.now()
        await pause(LOAD_AFTER_MS)
        const { created, unexpected } = await load.stop()
        server.kill('SIGTERM')
        expect(await server.exited).toEqual({ code: 0, signal: null })
        expect(unexpected).toEqual([])

        const { config } = database
        if (config.kind === 'sqlite') {
          // The command's one line: what it copied, where to, its size and duration.
          const [, source, file, bytes, ms] = BACKUP_LINE.exec(backup.line ?? '') ?? []
          expect(backup.line).toMatch(BACKUP_LINE)
          expect([source, file]).toEqual([config.file, backup.file])
          expect(Number(bytes)).toBe(statSync(backup.file).size)
          expect(Number(ms)).toBeLessThan(backupEnded - backupStarted)
        }
        const before = created.filter((write) => write.answeredAt < backupStarted)
        const after = created.filter((write) => write.sentAt > backupEnded)
        const during = created.filter((write) => !before.includes(write) && !after.includes(write))
        // The backup came in the middle of the load: both kinds before it, writes after.
        expect(before.some((write) => write.kind === 'members')).toBe(true)
        expect(before.some((write) => write.kind === 'todos')).toBe(true)
        expect(after.length).toBeGreaterThan(0)

        restored = await restoreFresh(target, backup, schema)
        const server2 = await startServerProcess(restored.config, {}, { entry: FROM_BUILD })
        const answers = await readEach(server2, created)
        const status = (write: Created) => answers.get(write)?.status
        const notAsAnswered = before
          .filter(
            (write) =>
              status(write) !== 200 ||
              JSON.stringify(answers.get(write)?.body) !== JSON.stringify(write.body),
          )
          .map((write) => `${write.kind}/${write.id}: ${status(write)} ${answers.get(write)?.text}`)
        expect(notAsAnswered, 'answered 201 before the backup began').toEqual([])
        const afterPresent = after
          .filter((write) => status(write) !== 404)
          .map((write) => `${write.kind}/${write.id}: ${status(write)}`)
        expect(afterPresent, 'sent after the backup ended').toEqual([])
        const duringPresent = during.filter((write) => status(write) === 200)
        expect(
          during.filter((write) => status(write) !== 200 && status(write) !== 404),
          'created while the backup ran: there or not, nothing else',
        ).toEqual([])

        // Consistent: nothing half-written, nothing the load did not create.
        expect(await halfWrittenMembers(restored)).toBe(0)
        const answered = new Set(created.map((write) => write.id))
        for (const [kind, table, column] of [
          ['todos', 'todo', 'todo_id'],
          ['members', 'member', 'member_id'],
        ] as const) {
          const ids = await idsIn(restored, table, column)
          expect(
            ids.filter((id) => !answered.has(id)),
            `${table} rows no create answered`,
          ).toEqual([])
          const inBackup = [...before, ...duringPresent].filter((write) => write.kind === kind)
          expect(ids.length, table).toBe(inBackup.length)
        }
        // The restored service takes writes.
        const todo = await server2.request('POST', '/api/v1/todos', {
          body: { todoTitle: 'Restored' },
        })
        expect(todo.status).toBe(201)
        server2.kill('SIGTERM')
        expect(await server2.exited).toEqual({ code: 0, signal: null })
        if (restored.config.kind === 'sqlite') {
          expect(await restored.query('pragma integrity_check')).toEqual([
            { integrity_check: 'ok' },
          ])
        }

        const members = before.filter((write) => write.kind === 'members').length
        console.log(
          `backup on ${target.name}: ${before.length} creates answered before it began ` +
            `(${before.length - members} todos, ${members} members), all restored; ` +
            `${during.length} while it ran (${duringPresent.length} in it); ${after.length} after it, none in it; ` +
            `backup ${Math.round(backupEnded - backupStarted)} ms, ${statSync(backup.file).size} bytes` +
            (backup.line ? ` (${backup.line})` : ''),
        )
      },
    )
  })
}

/** The SHA-256 of a file: the same before and after a refused restore. */
function digestOf(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex')
}

describe('The SQLite backup and restore commands refuse', () => {
  let database: IsolatedDatabase | undefined
  let server: ServerProcess | undefined
  let folder = ''
  let file = ''
  let backupFile = ''
  let todoId = ''
  let settings: Record<string, string> = {}

  beforeAll(async () => {
    database = await SQLITE_TARGET.create()
    if (database.config.kind !== 'sqlite') throw new Error('not SQLite')
    file = database.config.file
    settings = databaseSettingsOf(database.config)
    folder = mkdtempSync(join(tmpdir(), 'backup-refusals-'))
    backupFile = join(folder, 'backup.sqlite')
    server = await startServerProcess(database.config, {}, { entry: FROM_BUILD })
    const todo = await server.request('POST', '/api/v1/todos', { body: { todoTitle: 'Kept' } })
    todoId = (todo.body as { todoId: string }).todoId
  }, PROCESS_TEST.timeout)
  afterEach(() => {
    // No half-restored copy is left beside the database.
    expect(readdirSync(join(file, '..')).filter((name) => name.includes('.restoring'))).toEqual([])
  })
  afterAll(async () => {
    await killLeftoverProcesses()
    await database?.drop()
    rmSync(folder, { recursive: true, force: true })
  })

  it('the database of a running service, which goes on serving it', PROCESS_TEST, async () => {
    const backup = await runBuilt(['backup', backupFile], settings)
    expect(backup.status, backup.stderr).toBe(0)
    expect(backup.stdout.trim()).toMatch(BACKUP_LINE)
    expectOneLine(
      await runBuilt(['restore', backupFile], settings),
      /^Could not restore: DATABASE_URL \(SQLite file .+\): a running service has it open/,
      /\[SQLITE_BUSY\]/,
      /Fix: stop the service/,
    )
    expect((await server?.request('GET', `/api/v1/todos/${todoId}`))?.status).toBe(200)
    const todo = await server?.request('POST', '/api/v1/todos', { body: { todoTitle: 'Still' } })
    expect(todo?.status).toBe(201)
  })

  it(
    'a file that is no sound backup of this service, leaving the database as it was',
    PROCESS_TEST,
    async () => {
      server?.kill('SIGTERM')
      expect(await server?.exited).toEqual({ code: 0, signal: null })
      const digest = digestOf(file)
      const text = join(folder, 'notes.txt')
      writeFileSync(text, 'Not a database, but long enough to be taken for a header. '.repeat(4))
      expectOneLine(
        await runBuilt(['restore', text], settings),
        /^Could not restore: backup .+notes\.txt: file is not a database \[SQLITE_NOTADB\]/,
        /Fix: name a file written by "node dist\/server\.js backup"/,
      )
      const other = join(folder, 'other.sqlite')
      const otherDb = new Sqlite(other)
      otherDb.exec('create table note (text)')
      otherDb.close()
      expectOneLine(
        await runBuilt(['restore', other], settings),
        /^Could not restore: backup .+other\.sqlite: no kysely_migration table: not a database of this service/,
      )
      const later = join(folder, 'later.sqlite')
      copyFileSync(backupFile, later)
      const laterDb = new Sqlite(later)
      laterDb.exec(`insert into kysely_migration values ('9999-of-a-later-release', 'now')`)
      laterDb.close()
      expectOneLine(
        await runBuilt(['restore', later], settings),
        /^Could not restore: backup .+later\.sqlite: migration 9999-of-a-later-release is unknown/,
        /Fix: restore it with the release that wrote it/,
      )
      const damaged = join(folder, 'damaged.sqlite')
      const bytes = readFileSync(backupFile)
      const middlePage = Math.floor(bytes.length / PAGE_SIZE / 2)
      bytes.fill(0x55, middlePage * PAGE_SIZE, (middlePage + 1) * PAGE_SIZE)
      writeFileSync(damaged, bytes)
      expectOneLine(
        await runBuilt(['restore', damaged], settings),
        /^Could not restore: backup .+damaged\.sqlite: (integrity_check found faults|database disk image is malformed)/,
        /Fix: restore an earlier backup/,
      )
      expectOneLine(
        await runBuilt(['restore', join(folder, 'missing.sqlite')], settings),
        /^Could not restore: backup .+missing\.sqlite: ENOENT/,
        /Fix: name an existing backup file/,
      )
      expect(digestOf(file)).toBe(digest)
    },
  )

  it(
    'to overwrite a file that another backup wrote while it ran: of three at once, one writes it',
    PROCESS_TEST,
    async () => {
      const raced = join(folder, 'raced.sqlite')
      const outcomes = await Promise.all([1, 2, 3].map(() => runBuilt(['backup', raced], settings)))
      const written = outcomes.filter((outcome) => outcome.status === 0)
      expect(written.map((outcome) => outcome.stdout.trim())).toEqual([
        expect.stringMatching(BACKUP_LINE),
      ])
      for (const refused of outcomes.filter((outcome) => outcome.status !== 0)) {
        expectOneLine(
          refused,
          /^Could not back up: backup .+raced\.sqlite: the file exists already\. Fix: name a new file/,
        )
      }
      const copy = new Sqlite(raced, { readonly: true })
      try {
        expect(copy.prepare('select count(*) as n from todo').get()).toEqual({
          n: expect.any(Number),
        })
      } finally {
        copy.close()
      }
      expect(readdirSync(folder).filter((name) => name.includes('.partial'))).toEqual([])
    },
  )

  it('to overwrite a file, and to back up PostgreSQL', async () => {
    // Self-contained: a name filter (CI's -t '[Pp]ostgre') may run this test alone.
    const existing = join(folder, 'existing.sqlite')
    writeFileSync(existing, 'an earlier backup')
    expectOneLine(
      await runBuilt(['backup', existing], settings),
      /^Could not back up: backup .+: the file exists already\. Fix: name a new file/,
    )
    expectOneLine(
      await runBuilt(['backup', join(folder, 'pg.sqlite')], {
        DATABASE_URL: 'postgres://app@127.0.0.1:1/app',
      }),
      /^Could not back up: DATABASE_URL \(postgres:\/\/app@127\.0\.0\.1:1\/app\): .*Fix: use pg_dump and pg_restore/,
    )
  })
})
