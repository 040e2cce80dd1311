import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { freePort } from './ports.js'

export const PGBOUNCER = '/usr/sbin/pgbouncer'
export const HAS_PGBOUNCER = existsSync(PGBOUNCER)

export interface RunningPgBouncer {
  /** The same database and user as the direct URL, through PgBouncer. */
  readonly url: string
  readonly version: string
  stop(): Promise<void>
}

/** PgBouncer refuses to run as root; as root it is told to switch to PostgreSQL's own user. */
const AS_ROOT = process.getuid?.() === 0
const SERVICE_USER = 'postgres'

/**
 * Debian's PgBouncer on a free loopback port, in front of the PostgreSQL of `directUrl`.
 * Stock settings but for `pool_mode = transaction`, and what a private instance needs
 * (its port, its files, no Unix socket, trust for the test user as PostgreSQL has).
 */
export async function startPgBouncer(directUrl: string): Promise<RunningPgBouncer> {
  const target = new URL(directUrl)
  const user = decodeURIComponent(target.username || 'postgres')
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'pgbouncer-'))
  if (AS_ROOT) execFileSync('chown', [SERVICE_USER, dir])
  const ini = join(dir, 'pgbouncer.ini')
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n`)
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      'pool_mode = transaction',
    ].join('\n'),
  )
  const version = execFileSync(PGBOUNCER, ['--version']).toString().split('\n')[0] ?? 'PgBouncer'
  const child: ChildProcess = spawn(PGBOUNCER, [...(AS_ROOT ? ['-u', SERVICE_USER] : []), ini], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const output: string[] = []
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()))
  const url = new URL(directUrl)
  url.port = String(port)
  url.search = ''
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
  for (let attempt = 0; ; attempt += 1) {
    const client = new pg.Client({ connectionString: url.toString() })
    try {
      await client.connect()
      await client.query('select 1')
      await client.end()
      break
    } catch (error) {
      await client.end().catch(() => undefined)
      if (attempt >= 50 || child.exitCode !== null) {
        await stop()
        throw new Error(`PgBouncer did not start: ${String(error)}\n${output.join('')}`)
      }
      await sleep(100)
    }
  }
  return { url: url.toString(), version, stop }
}
