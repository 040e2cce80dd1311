import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { freePort } from './ports.js'

/**
 * A streaming replica of the PostgreSQL at `primaryUrl`: a second cluster on a free
 * loopback port, copied with pg_basebackup and following the primary's WAL. PostgreSQL
 * refuses to run as root, so as root its programs run as the `postgres` user.
 */
export interface StreamingReplica {
  readonly port: number
  /** `primaryUrl` with the replica's port. */
  urlFor(primaryUrl: string): string
  /** Runs SQL on the replica, straight (not through the service), as `primaryUrl` would on the primary. */
  query<Row = Record<string, unknown>>(sql: string): Promise<Row[]>
  /** Stops applying the primary's changes, until resumed: the replica falls behind at will. */
  pauseReplay(): Promise<void>
  resumeReplay(): Promise<void>
  stop(): void
  start(): void
  /** Stops it and deletes its files. */
  remove(): void
}

const AS_ROOT = process.getuid?.() === 0
const POSTGRES_USER = 'postgres'

function binDir(): string | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const [newest] = readdirSync(root).sort((a, b) => Number(b) - Number(a))
  return newest && join(root, newest, 'bin')
}

const BIN = binDir()

/** One of PostgreSQL's programs (pg_dump, pg_restore, …) of the newest version installed. */
export function postgresProgram(program: string): string | undefined {
  if (BIN === undefined || !existsSync(join(BIN, program))) return undefined
  return join(BIN, program)
}

/** Whether this machine can make one: PostgreSQL's server programs are installed. */
export const CAN_MAKE_REPLICA = BIN !== undefined && existsSync(join(BIN, 'pg_basebackup'))

function run(program: string, args: readonly string[]): string {
  const path = join(BIN as string, program)
  const [command, fullArgs] = AS_ROOT
    ? ['runuser', ['-u', POSTGRES_USER, '--', path, ...args]]
    : [path, [...args]]
  return execFileSync(command, fullArgs, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

export async function startStreamingReplica(primaryUrl: string): Promise<StreamingReplica> {
  const primary = new URL(primaryUrl)
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'replica-'))
  if (AS_ROOT) execFileSync('chown', [POSTGRES_USER, dir])
  const data = join(dir, 'data')
  run('pg_basebackup', [
    '--host',
    primary.hostname,
    '--port',
    primary.port || '5432',
    '--username',
    decodeURIComponent(primary.username || POSTGRES_USER),
    '--pgdata',
    data,
    '--write-recovery-conf',
    '--wal-method=stream',
    '--checkpoint=fast',
  ])
  // A Debian cluster keeps its configuration outside the data directory: the copy gets its own.
  const own = (file: string, text: string) => {
    writeFileSync(join(data, file), text)
    if (AS_ROOT) execFileSync('chown', [POSTGRES_USER, join(data, file)])
  }
  own(
    'postgresql.conf',
    [
      "listen_addresses = '127.0.0.1'",
      `port = ${port}`,
      `unix_socket_directories = '${dir}'`,
      'hot_standby = on',
      'max_connections = 100',
    ].join('\n'),
  )
  own('pg_hba.conf', 'local all all trust\nhost all all 127.0.0.1/32 trust\n')
  own('pg_ident.conf', '')
  const log = join(dir, 'replica.log')
  const start = () => {
    run('pg_ctl', ['--pgdata', data, '--log', log, '--wait', 'start'])
  }
  const stop = () => {
    run('pg_ctl', ['--pgdata', data, '--mode', 'fast', '--wait', 'stop'])
  }
  start()
  const urlFor = (url: string) => {
    const replica = new URL(url)
    replica.hostname = '127.0.0.1'
    replica.port = String(port)
    return replica.toString()
  }
  const query = async <Row>(sql: string) => {
    const client = new pg.Client({ connectionString: urlFor(primaryUrl) })
    await client.connect()
    try {
      return (await client.query(sql)).rows as Row[]
    } finally {
      await client.end()
    }
  }
  return {
    port,
    urlFor,
    query,
    pauseReplay: async () => {
      await query('select pg_wal_replay_pause()')
    },
    resumeReplay: async () => {
      await query('select pg_wal_replay_resume()')
    },
    stop,
    start,
    remove: () => {
      try {
        stop()
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
