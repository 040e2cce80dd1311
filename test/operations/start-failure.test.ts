import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type IsolatedDatabase, POSTGRES_TARGET } from '../helpers/databases.js'
import { HAS_PGBOUNCER, type RunningPgBouncer, startPgBouncer } from '../helpers/pgbouncer.js'
import { type CommandOutcome, expectOneLine, runBuilt } from '../helpers/process.js'

/**
 * A service that cannot start says why in one line, as an operator reads it: the setting
 * concerned, the cause in the words of the system that refused, and what to do; then it
 * exits 1. At LOG_LEVEL=debug the whole error follows, its stack naming the TypeScript
 * sources (the bundle runs with source maps on). Each case runs the built bundle, as
 * `npm start` and a container do.
 */

const START_TIMEOUT_MS = 20_000

function runService(settings: Record<string, string>): Promise<CommandOutcome> {
  return runBuilt([], { HOST: '127.0.0.1', PORT: '0', ...settings }, START_TIMEOUT_MS)
}

describe('A start that fails', () => {
  let folder: string
  let listener: Server

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'start-failure-'))
    listener = createServer()
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  })
  afterAll(() => {
    listener.close()
    rmSync(folder, { recursive: true, force: true })
  })

  it('names DATABASE_URL, the refused connection and the fix, when nothing listens there', async () => {
    const outcome = await runService({ DATABASE_URL: 'postgres://app:secret@127.0.0.1:1/app' })
    expectOneLine(
      outcome,
      /^Could not start: DATABASE_URL \(postgres:\/\/app@127\.0\.0\.1:1\/app\): /,
      /ECONNREFUSED/,
      /Fix: start PostgreSQL there/,
    )
    expect(outcome.stderr).not.toContain('secret')
  })

  it('names the SQLite file when a file stands where its folder must be', async () => {
    const file = join(folder, 'not-a-folder')
    writeFileSync(file, 'x')
    const outcome = await runService({ DATABASE_URL: `sqlite:${file}/todo.db` })
    expectOneLine(
      outcome,
      /^Could not start: DATABASE_URL \(SQLite file .*not-a-folder\/todo\.db\): /,
      /EEXIST|ENOTDIR/,
      /Fix: a file stands where the SQLite folder must be/,
    )
  })

  it('names HOST/PORT when another process holds the port', async () => {
    const address = listener.address()
    const port = typeof address === 'object' && address ? address.port : 0
    const outcome = await runService({
      DATABASE_URL: `sqlite:${join(folder, 'port.db')}`,
      PORT: String(port),
    })
    expectOneLine(outcome, new RegExp(`HOST/PORT \\(127\\.0\\.0\\.1:${port}\\)`), /EADDRINUSE/)
  })

  it('prints the whole error at LOG_LEVEL=debug, its stack in the TypeScript sources', async () => {
    const outcome = await runService({
      DATABASE_URL: 'postgres://app@127.0.0.1:1/app',
      LOG_LEVEL: 'debug',
    })
    expect(outcome.status).toBe(1)
    expect(outcome.stderr.split('\n')[0]).toMatch(/^Could not start: DATABASE_URL/)
    expect(outcome.stderr).toMatch(/src\/infra\/db\/[\w/-]+\.ts:\d+:\d+/)
  })
})

describe.skipIf(!POSTGRES_TARGET.available || !HAS_PGBOUNCER)(
  'A start through PgBouncer in transaction mode without DB_POOLER=transaction',
  () => {
    let database: IsolatedDatabase | undefined
    let pgbouncer: RunningPgBouncer | undefined

    beforeAll(async () => {
      database = await POSTGRES_TARGET.create()
      pgbouncer = await startPgBouncer(database.directUrl ?? '')
    }, 30_000)
    afterAll(async () => {
      await pgbouncer?.stop()
      await database?.drop()
    })

    it('says to set DB_POOLER=transaction', async () => {
      const outcome = await runService({ DATABASE_URL: pgbouncer?.url ?? '', DB_POOLER: 'none' })
      expectOneLine(
        outcome,
        /^Could not start: DATABASE_URL /,
        /unsupported startup parameter/,
        /set DB_POOLER=transaction/,
      )
    })
  },
)
