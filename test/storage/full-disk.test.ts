import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NODE_ENVIRONMENT, NODE_FLAGS } from '../../scripts/node-flags.mjs'
import type { HttpResponse } from '../helpers/http.js'
import { type ServerProcess, startServerProcess } from '../helpers/process.js'
import { pause } from '../helpers/time.js'

/**
 * SQLite on a full disk (docs/operations/databases.md, "A full disk"): the built server on
 * a file system of 512 KiB of its own (a tmpfs in a user and mount namespace, unshare -rm),
 * part of it taken by a ballast file. Writes fill the rest: each then fails whole with
 * 500 e.ex.fw.9002, its error line saying so, while reads and /health/ready still answer;
 * once the ballast is gone (SIGUSR1 to the shell that holds the namespace) the next write
 * succeeds without a restart, and SIGTERM still stops the server with exit 0.
 */

const CAN_MOUNT = spawnSync('unshare', ['-rm', 'true']).status === 0
if (!CAN_MOUNT) {
  console.warn('test/storage/full-disk.test.ts: skipped, unshare -rm (a user namespace) is refused')
}

const MOST_WRITES = 2_000
const SYSTEM_ERROR = { code: 'e.ex.fw.9002', message: 'System error occurred.' }

/**
 * The shell that mounts the small file system, starts the server on it and relays
 * SIGTERM to it; SIGUSR1 deletes the ballast. It exits with the server's exit code.
 */
const SCRIPT = `
set -e
mount -t tmpfs -o size=512k tmpfs "$FULL_DISK_DIR"
head -c 131072 /dev/zero > "$FULL_DISK_DIR/ballast"
set +e
"$FULL_DISK_NODE" ${NODE_FLAGS.join(' ')} dist/server.js &
server=$!
trap 'rm -f "$FULL_DISK_DIR/ballast"' USR1
trap 'kill -TERM $server' TERM
status=0
while kill -0 $server 2>/dev/null; do wait $server; status=$?; done
exit $status
`

describe.skipIf(!CAN_MOUNT)('SQLite on a full disk', () => {
  let folder: string
  let server: ServerProcess

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'full-disk-'))
    server = await startServerProcess(
      { kind: 'sqlite', file: join(folder, 'api.sqlite') },
      { ...NODE_ENVIRONMENT, FULL_DISK_DIR: folder, FULL_DISK_NODE: process.execPath },
      { command: ['unshare', '-rm', 'sh', '-c', SCRIPT] },
    )
  })
  afterAll(async () => {
    // The shell relays SIGTERM to the server; SIGKILL would leave the server behind it.
    server?.kill('SIGTERM')
    await server?.exited
    rmSync(folder, { recursive: true, force: true })
  })

  const create = (todoTitle: string) =>
    server.request('POST', '/api/v1/todos', { body: { todoTitle } })

  it('answers 500 e.ex.fw.9002 to writes, keeps reading and ready, and writes again once space is free', async () => {
    const created: string[] = []
    let refused: HttpResponse | undefined
    for (let n = 0; n < MOST_WRITES && refused === undefined; n += 1) {
      const answer = await create(`fills the disk ${n}`)
      if (answer.status === 201) created.push((answer.body as { todoId: string }).todoId)
      else refused = answer
    }
    expect(created.length).toBeGreaterThan(0)
    expect({ status: refused?.status, body: refused?.body }).toEqual({
      status: 500,
      body: SYSTEM_ERROR,
    })
    const again = await create('still full')
    expect({ status: again.status, body: again.body }).toEqual({ status: 500, body: SYSTEM_ERROR })

    // Reads need no space, and neither does the readiness check: the balancer keeps it.
    expect((await server.request('GET', `/api/v1/todos/${created[0]}`)).status).toBe(200)
    const ready = await server.request('GET', '/health/ready')
    expect({ status: ready.status, body: ready.body }).toEqual({
      status: 200,
      body: { status: 'UP', checks: { database: 'UP' } },
    })
    // Each failed write's error line, once the log's batch is written (within a second).
    const failures = () =>
      server.stdoutLines
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg?: string; err?: { message?: string } })
        .filter((line) => line.msg === 'request failed')
    for (let waited = 0; failures().length < 2 && waited < 3_000; waited += 100) await pause(100)
    expect(failures().map((line) => line.err?.message)).toEqual([
      expect.stringContaining('database or disk is full'),
      expect.stringContaining('database or disk is full'),
    ])

    process.kill(server.pid, 'SIGUSR1')
    let after = await create('space again')
    for (let tries = 0; after.status !== 201 && tries < 20; tries += 1) {
      await pause(100)
      after = await create('space again')
    }
    expect(after.status).toBe(201)

    server.kill('SIGTERM')
    expect((await server.exited).code).toBe(0)
  })
})
