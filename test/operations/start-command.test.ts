import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { NODE_ENVIRONMENT, NODE_ENVIRONMENT_SHELL, NODE_FLAGS } from '../../scripts/node-flags.mjs'
import { type IsolatedDatabase, SQLITE_TARGET } from '../helpers/databases.js'
import { imageFacts } from '../helpers/dockerfile.js'
import {
  killLeftoverProcesses,
  ROOT,
  type ServerProcess,
  startServerProcess,
} from '../helpers/process.js'

/**
 * `npm start` (scripts/start.mjs) serves the production build at once when the build is
 * newer than its sources, and builds it first only when a source changed; the server
 * runs in npm's own child, so npm's SIGTERM reaches it and it stops gracefully.
 */

const PROCESS_TEST = { timeout: 90_000 }
const BUILDING = /^npm start: the .* older than their sources; building first$/

/** What `npm start` prints that is not a log line. */
const remarksOf = (server: ServerProcess) => [...server.stdoutLines, ...server.stderrLines]

/** Sets the times of `path` and of everything under it. */
function touchAll(path: string, time: Date): void {
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path)) touchAll(join(path, entry), time)
  }
  utimesSync(path, time, time)
}

async function expectServing(server: ServerProcess): Promise<void> {
  expect((await server.request('GET', '/health/ready')).status).toBe(200)
  expect((await server.request('GET', '/')).status).toBe(200)
}

describe("Node's flags and environment for the service (scripts/node-flags.mjs)", () => {
  it('are the ones npm start and the container image run it with', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>
    }
    expect(scripts.start).toBe(
      `${NODE_ENVIRONMENT_SHELL} exec node ${NODE_FLAGS.join(' ')} scripts/start.mjs`,
    )
    expect(imageFacts().entrypoint).toEqual(['node', ...NODE_FLAGS, 'dist/server.js'])
    expect(imageFacts().environment).toMatchObject(NODE_ENVIRONMENT)
  })
})

/** The environment the process `pid` was started with. */
function environmentOf(pid: number): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean)
  return Object.fromEntries(entries.map((entry) => entry.split(/=(.*)/s).slice(0, 2)))
}

/** The one child of `pid` (npm's: the server, which its script's shell became). */
function onlyChildOf(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ')
  expect(children).toHaveLength(1)
  return Number(children[0])
}

describe('npm start', () => {
  let database: IsolatedDatabase | undefined
  beforeAll(async () => {
    database = await SQLITE_TARGET.create()
  }, PROCESS_TEST.timeout)
  afterEach(async () => {
    await killLeftoverProcesses()
  })
  afterAll(async () => {
    await database?.drop()
  })
  const config = () => {
    if (!database) throw new Error('the suite database is not created yet')
    return database.config
  }

  it(
    'serves a built clone without building, and stops with exit 0 on SIGTERM to npm',
    PROCESS_TEST,
    async () => {
      const server = await startServerProcess(config(), {}, { command: ['npm', 'start'] })
      await expectServing(server)
      expect(environmentOf(onlyChildOf(server.pid))).toMatchObject(NODE_ENVIRONMENT)
      server.kill('SIGTERM')
      expect(await server.exited).toEqual({ code: 0, signal: null })
      expect(server.logMessages()).toContain('stopped')
      expect(remarksOf(server).filter((line) => BUILDING.test(line))).toEqual([])
    },
  )

  it('builds first when a source is newer than the build, then serves', PROCESS_TEST, async () => {
    // A copy of the built clone, so that no other suite's bundle is rebuilt under it.
    const clone = mkdtempSync(join(tmpdir(), 'start-command-'))
    try {
      for (const path of ['src', 'web', 'clients', 'scripts', 'dist', 'package.json']) {
        cpSync(join(ROOT, path), join(clone, path), { recursive: true })
      }
      cpSync(join(ROOT, 'package-lock.json'), join(clone, 'package-lock.json'))
      symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'))
      // As a clone built a minute ago after its last change (every source older), then
      // one source edited half a minute ago.
      const bundle = join(clone, 'dist/server.js')
      const now = Date.now()
      const builtAt = now - 60_000
      const before = new Date(builtAt - 60_000)
      for (const path of [
        'src',
        'web',
        'clients',
        'scripts',
        'package.json',
        'package-lock.json',
      ]) {
        touchAll(join(clone, path), before)
      }
      for (const output of ['dist/server.js', 'dist/web/index.html']) {
        utimesSync(join(clone, output), new Date(builtAt), new Date(builtAt))
      }
      const edited = new Date(now - 30_000)
      utimesSync(join(clone, 'src/app.ts'), edited, edited)

      const server = await startServerProcess(
        config(),
        {},
        { command: ['npm', 'start'], cwd: clone, startTimeoutMs: 60_000 },
      )
      await expectServing(server)
      expect(remarksOf(server).filter((line) => BUILDING.test(line))).toEqual([
        'npm start: the server build is older than their sources; building first',
      ])
      expect(statSync(bundle).mtimeMs).toBeGreaterThan(now - 1_000)
      server.kill('SIGTERM')
      expect(await server.exited).toEqual({ code: 0, signal: null })
    } finally {
      rmSync(clone, { recursive: true, force: true })
    }
  })
})
