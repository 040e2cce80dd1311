import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { PGBOUNCER } from './pgbouncer.js'
import { freePort } from './ports.js'
import { pause } from './time.js'

/**
 * deploy/compose.yaml as a real Compose implementation (Debian's docker-compose) resolves
 * it, and its PgBouncer started from the fleet's own pgbouncer.ini and entrypoint: what the
 * tests of the fleet (compose.test.ts, secrets.test.ts) run its settings against.
 */

export const COMPOSE = '/usr/bin/docker-compose'
export const HAS_COMPOSE = existsSync(COMPOSE)
export const COMPOSE_FILE = 'deploy/compose.yaml'

/** The two passwords the fleet needs: PostgreSQL's superuser's and the service's role's. */
export const FLEET_PASSWORDS = {
  POSTGRES_PASSWORD: 'compose-test-superuser-password',
  APP_DB_PASSWORD: 'compose-test-password',
}

export interface Service {
  readonly image: string
  readonly environment?: Record<string, string>
  readonly command?: string[]
  readonly entrypoint?: string[]
  readonly volumes?: string[]
  readonly stop_grace_period?: string
  readonly healthcheck?: { readonly test: string[] }
  readonly depends_on?: Record<string, { readonly condition: string }>
  readonly logging?: { readonly driver: string; readonly options?: Record<string, string> }
  readonly mem_limit?: string
  readonly networks?: Record<string, { readonly ipv4_address?: string } | null>
  readonly build?: { readonly args?: Record<string, string> }
}

export interface Fleet {
  readonly services: Record<string, Service>
  readonly networks: Record<string, { readonly ipam?: { config: { subnet: string }[] } }>
}

/** docker-compose with the file and only the given variables (and PATH) set. */
export function compose(args: string[], env: Record<string, string> = FLEET_PASSWORDS) {
  return spawnSync(COMPOSE, ['-f', COMPOSE_FILE, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, ...env },
  })
}

/** `docker-compose config`: the file validated, interpolated and written out in full. */
export function resolvedFleet(env: Record<string, string> = FLEET_PASSWORDS): Fleet {
  const result = compose(['config'], env)
  if (result.status !== 0) throw new Error(`${COMPOSE_FILE} is invalid: ${result.stderr}`)
  return parse(result.stdout) as Fleet
}

/** The fleet's instances of the service, by name. */
export function instancesOf(fleet: Fleet): [string, Service][] {
  return Object.entries(fleet.services).filter(([name]) => /^api\d$/.test(name))
}

/** `key = value` lines of an ini section. */
export function iniSection(text: string, section: string): Record<string, string> {
  const body = text.split(/^\[/m).find((part) => part.startsWith(`${section}]`)) ?? ''
  return Object.fromEntries(
    body
      .split('\n')
      .slice(1)
      .filter((line) => /^\s*[^;#\s].*=/.test(line))
      .map((line) => line.split(/=(.*)/s, 2).map((part) => part.trim()) as [string, string]),
  )
}

export const PGBOUNCER_INI = readFileSync('deploy/pgbouncer.ini', 'utf8')

export interface FleetPgBouncer {
  readonly port: number
  stop(): void
}

/**
 * Debian's PgBouncer run as the fleet runs it: its userlist written by the compose file's
 * own entrypoint command from APP_DB_PASSWORD, its settings the fleet's pgbouncer.ini but
 * for where this run listens and keeps files. `database` points the fleet's `todo` at a
 * real database (as `user`); without it a login is tried on PgBouncer's own console.
 */
export async function startFleetPgBouncer(
  fleet: Fleet,
  password: string,
  database?: { readonly name: string; readonly user: string },
): Promise<FleetPgBouncer> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-pgbouncer-'))
  const port = await freePort()
  const user = database?.user ?? 'todo'
  const entrypoint = fleet.services.pgbouncer?.entrypoint ?? []
  // As Compose runs it: `$$` in the file is a `$` for the shell.
  const script = (entrypoint[2] ?? '')
    .replaceAll('$$', '$')
    .replace(' && exec pgbouncer /etc/pgbouncer/pgbouncer.ini', '')
    .replaceAll('/tmp/userlist.txt', join(dir, 'userlist.txt'))
    .replace(`'"todo"`, `'"${user}"`)
  execFileSync('/bin/sh', ['-c', script], { env: { APP_DB_PASSWORD: password } })
  let ini = PGBOUNCER_INI.replace(/^listen_addr = .*$/m, 'listen_addr = 127.0.0.1')
    .replace(/^listen_port = .*$/m, `listen_port = ${port}\nunix_socket_dir =`)
    .replace(/^auth_file = .*$/m, `auth_file = ${join(dir, 'userlist.txt')}`)
  ini = database
    ? ini.replace(/^todo = .*$/m, `todo = host=127.0.0.1 port=5432 dbname=${database.name}`)
    : ini.replace('[pgbouncer]', `[pgbouncer]\nadmin_users = ${user}`)
  writeFileSync(join(dir, 'pgbouncer.ini'), ini)
  if (process.getuid?.() === 0) execFileSync('chown', ['-R', 'postgres', dir])
  const asRoot = process.getuid?.() === 0 ? ['-u', 'postgres'] : []
  const child = spawn(PGBOUNCER, [...asRoot, join(dir, 'pgbouncer.ini')], { stdio: 'ignore' })
  const stop = () => {
    child.kill('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  }
  for (let tries = 0; !(await accepts(port)); tries += 1) {
    if (tries > 100 || child.exitCode !== null) {
      stop()
      throw new Error('PgBouncer did not start with the fleet’s pgbouncer.ini')
    }
    await pause(50)
  }
  return { port, stop }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}
