import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { loadConfig, SETTINGS } from '../../src/config/settings.js'
import { imageFacts, PACKAGE_VERSION } from '../helpers/dockerfile.js'
import { HAS_PGBOUNCER, PGBOUNCER } from '../helpers/pgbouncer.js'
import { freePort } from '../helpers/ports.js'
import { HAS_REDIS, REDIS_SERVER } from '../helpers/redis.js'

/**
 * deploy/compose.yaml, the whole fleet in one command. Its images cannot be pulled here
 * (no public registry), so it is not brought up: a real Compose implementation (Debian's
 * docker-compose) validates it and resolves it, and every setting in it is checked
 * against the program that reads it: the service's own settings table for the three
 * instances, and Debian's HAProxy, PgBouncer and Redis for theirs, started with the very
 * files and arguments the fleet gives them.
 */

const COMPOSE = '/usr/bin/docker-compose'
const HAPROXY = '/usr/sbin/haproxy'
const FILE = 'deploy/compose.yaml'
const PASSWORD = 'compose-test-password'

if (!existsSync(COMPOSE)) {
  console.warn(`${FILE}: skipped, ${COMPOSE} is not installed (apt-get install docker-compose)`)
}

interface Service {
  readonly image: string
  readonly environment?: Record<string, string>
  readonly command?: string[]
  readonly entrypoint?: string[]
  readonly volumes?: string[]
  readonly stop_grace_period?: string
}

interface Resolved {
  readonly services: Record<string, Service>
}

function compose(args: string[], env: Record<string, string> = { POSTGRES_PASSWORD: PASSWORD }) {
  return spawnSync(COMPOSE, ['-f', FILE, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, ...env },
  })
}

/** `docker-compose config`: the file validated, interpolated and written out in full. */
function resolved(): Resolved {
  const result = compose(['config'])
  if (result.status !== 0) throw new Error(`${FILE} is invalid: ${result.stderr}`)
  return parse(result.stdout) as Resolved
}

/** `key = value` lines of an ini section. */
function iniSection(text: string, section: string): Record<string, string> {
  const body = text.split(/^\[/m).find((part) => part.startsWith(`${section}]`)) ?? ''
  return Object.fromEntries(
    body
      .split('\n')
      .slice(1)
      .filter((line) => /^\s*[^;#\s].*=/.test(line))
      .map((line) => line.split(/=(.*)/s, 2).map((part) => part.trim()) as [string, string]),
  )
}

const seconds = (duration: string) => Number(/^(\d+)s$/.exec(duration)?.[1] ?? Number.NaN)

describe.skipIf(!existsSync(COMPOSE))(FILE, () => {
  const fleet = existsSync(COMPOSE) ? resolved() : { services: {} }
  const apis = Object.entries(fleet.services).filter(([name]) => /^api\d$/.test(name))
  const pgbouncerIni = readFileSync('deploy/pgbouncer.ini', 'utf8')
  const bouncer = iniSection(pgbouncerIni, 'pgbouncer')

  it('is a valid Compose file, and one with a mistake is not', () => {
    expect(Object.keys(fleet.services).sort()).toEqual([
      'api1',
      'api2',
      'api3',
      'haproxy',
      'otel-collector',
      'pgbouncer',
      'postgres',
      'redis',
    ])
    const broken = mkdtempSync(join(tmpdir(), 'compose-'))
    try {
      const text = readFileSync(FILE, 'utf8').replace('restart: unless-stopped', 'restarts: no')
      writeFileSync(join(broken, 'compose.yaml'), text)
      const result = spawnSync(COMPOSE, ['-f', join(broken, 'compose.yaml'), 'config', '-q'], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, POSTGRES_PASSWORD: PASSWORD },
      })
      expect(result.status).not.toBe(0)
      expect(result.stderr).toContain('restarts')
    } finally {
      rmSync(broken, { recursive: true, force: true })
    }
  })

  it('will not start without a database password', () => {
    const result = compose(['config', '-q'], {})
    expect(result.status).not.toBe(0)
    expect(result.stderr).toContain('set POSTGRES_PASSWORD')
  })

  it('runs three instances with settings the service accepts, through PgBouncer', () => {
    expect(apis.map(([name]) => name)).toEqual(['api1', 'api2', 'api3'])
    const names = new Set(Object.values(SETTINGS).map((setting) => setting.name))
    for (const [, api] of apis) {
      const environment = api.environment ?? {}
      for (const name of Object.keys(environment)) {
        if (!name.startsWith('OTEL_')) expect(names, name).toContain(name)
      }
      const config = loadConfig(environment)
      expect(config.database).toMatchObject({ kind: 'postgres', pooler: 'transaction' })
      const url = new URL(environment.DATABASE_URL ?? '')
      expect([url.hostname, url.port]).toEqual(['pgbouncer', bouncer.listen_port])
      expect(decodeURIComponent(url.password)).toBe(PASSWORD)
      expect(iniSection(pgbouncerIni, 'databases')[url.pathname.slice(1)]).toMatch(
        /^host=postgres port=5432 dbname=todo$/,
      )
      expect(bouncer.pool_mode).toBe('transaction')
      expect(new URL(environment.REDIS_URL ?? '').hostname).toBe('redis')
      expect(config.rateLimit?.redisUrl).toBe('redis://redis:6379')
      expect(new URL(environment.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').host).toBe(
        'otel-collector:4318',
      )
    }
    const database = loadConfig(apis[0]?.[1].environment ?? {}).database
    const clients = apis.length * (database.kind === 'postgres' ? database.poolMax : 0)
    expect(clients).toBeGreaterThan(0)
    expect(clients).toBeLessThanOrEqual(Number(bouncer.max_client_conn))
    expect(clients).toBeLessThanOrEqual(Number(bouncer.default_pool_size))
  })

  it('builds the instances from the Dockerfile and runs them on its port', () => {
    const text = readFileSync(FILE, 'utf8')
    expect(text).toContain('context: ..\n    dockerfile: Dockerfile')
    for (const [, api] of apis) {
      expect(api.image).toBe(`todo-member-api:${PACKAGE_VERSION}`)
      expect(loadConfig(api.environment ?? {}).port).toBe(imageFacts().port)
    }
  })

  it('stops an instance only after its drain and its requests, and drains past HAProxy’s checks', () => {
    const haproxyCfg = readFileSync('deploy/haproxy.cfg', 'utf8')
    const inter = Number(/inter "\$\{CHECK_INTER-(\d+)s\}"/.exec(haproxyCfg)?.[1])
    const fall = Number(/fall "\$\{CHECK_FALL-(\d+)\}"/.exec(haproxyCfg)?.[1])
    for (const [, api] of apis) {
      const config = loadConfig(api.environment ?? {})
      expect(config.shutdownDrainMs).toBeGreaterThan(inter * fall * 1000)
      const graceMs = seconds(api.stop_grace_period ?? '') * 1000
      expect(graceMs).toBeGreaterThan(config.shutdownDrainMs + config.shutdownTimeoutMs)
    }
  })

  it.skipIf(!existsSync(HAPROXY))(
    'gives HAProxy the rolling-restart test’s own file, with instances it accepts',
    () => {
      const haproxy = fleet.services.haproxy as Service
      expect(haproxy.volumes?.[0]).toMatch(
        /deploy\/haproxy\.cfg:\/usr\/local\/etc\/haproxy\/haproxy\.cfg:ro$/,
      )
      const port = loadConfig(apis[0]?.[1].environment ?? {}).port
      expect(haproxy.environment).toEqual({
        APP1: `api1:${port}`,
        APP2: `api2:${port}`,
        APP3: `api3:${port}`,
      })
      const checked = spawnSync(HAPROXY, ['-c', '-f', 'deploy/haproxy.cfg'], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, ...haproxy.environment },
      })
      expect(checked.status, checked.stderr).toBe(0)
    },
  )

  describe.skipIf(!HAS_PGBOUNCER)('PgBouncer with the fleet’s pgbouncer.ini', () => {
    const dir = mkdtempSync(join(tmpdir(), 'compose-pgbouncer-'))
    let port = 0
    let stop = () => {}
    beforeAll(async () => {
      port = await freePort()
      // The entrypoint's own command writes the userlist from POSTGRES_PASSWORD.
      const entrypoint = (fleet.services.pgbouncer as Service).entrypoint ?? []
      // As Compose runs it: `$$` in the file is a `$` for the shell.
      const script = (entrypoint[2] ?? '')
        .replaceAll('$$', '$')
        .replace(' && exec pgbouncer /etc/pgbouncer/pgbouncer.ini', '')
      execFileSync(
        '/bin/sh',
        ['-c', script.replaceAll('/tmp/userlist.txt', join(dir, 'userlist.txt'))],
        {
          env: { POSTGRES_PASSWORD: PASSWORD },
        },
      )
      // The file as it is but for where this run may listen and keep its files.
      const ini = pgbouncerIni
        .replace(/^listen_addr = .*$/m, 'listen_addr = 127.0.0.1')
        .replace(/^listen_port = .*$/m, `listen_port = ${port}\nunix_socket_dir =`)
        .replace(/^auth_file = .*$/m, `auth_file = ${join(dir, 'userlist.txt')}`)
        // No database behind it: a login is tried on PgBouncer's own console.
        .replace('[pgbouncer]', '[pgbouncer]\nadmin_users = todo')
      writeFileSync(join(dir, 'pgbouncer.ini'), ini)
      if (process.getuid?.() === 0) execFileSync('chown', ['-R', 'postgres', dir])
      const asRoot = process.getuid?.() === 0 ? ['-u', 'postgres'] : []
      const child = spawn(PGBOUNCER, [...asRoot, join(dir, 'pgbouncer.ini')], { stdio: 'ignore' })
      stop = () => child.kill('SIGTERM')
    })
    afterAll(() => {
      stop()
      rmSync(dir, { recursive: true, force: true })
    })

    const attempt = async (password: string): Promise<string> => {
      for (let tries = 0; ; tries += 1) {
        const client = new pg.Client({
          host: '127.0.0.1',
          port,
          user: 'todo',
          password,
          database: 'pgbouncer',
          connectionTimeoutMillis: 5000,
        })
        try {
          await client.connect()
          await client.end()
          return 'connected'
        } catch (error) {
          const message = (error as Error).message
          if (!/ECONNREFUSED/.test(message) || tries > 50) return message
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
      }
    }

    it('takes the password the entrypoint writes, and refuses another', async () => {
      expect(await attempt(PASSWORD)).toBe('connected')
      expect(await attempt('not-the-password')).toMatch(/SASL authentication failed/)
    })
  })

  it.skipIf(!HAS_REDIS)('runs Redis with arguments it accepts', async () => {
    const command = (fleet.services.redis as Service).command ?? []
    expect(command[0]).toBe('redis-server')
    const port = await freePort()
    const redis = spawn(
      REDIS_SERVER,
      [...command.slice(1), '--port', String(port), '--bind', '127.0.0.1'],
      { stdio: 'ignore' },
    )
    try {
      let answer = ''
      for (let tries = 0; answer === '' && tries < 50; tries += 1) {
        answer = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout
        if (!answer.startsWith('PONG')) {
          answer = ''
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
      }
      expect(answer.trim()).toBe('PONG')
    } finally {
      redis.kill('SIGTERM')
    }
  })

  it('sends the traces to a collector pipeline that receives OTLP over HTTP on 4318', () => {
    const collector = fleet.services['otel-collector'] as Service
    expect(collector.volumes?.[0]).toMatch(
      /deploy\/otel-collector\.yaml:\/etc\/otelcol\/config\.yaml:ro$/,
    )
    expect(collector.command).toEqual(['--config=/etc/otelcol/config.yaml'])
    const config = parse(readFileSync('deploy/otel-collector.yaml', 'utf8')) as {
      receivers: { otlp: { protocols: { http: { endpoint: string } } } }
      processors: Record<string, unknown>
      exporters: Record<string, unknown>
      service: {
        pipelines: Record<string, Record<'receivers' | 'processors' | 'exporters', string[]>>
      }
    }
    expect(config.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318')
    const traces = config.service.pipelines.traces
    expect(traces?.receivers).toEqual(['otlp'])
    for (const kind of ['receivers', 'processors', 'exporters'] as const) {
      for (const name of traces?.[kind] ?? [])
        expect(Object.keys(config[kind]), name).toContain(name)
    }
  })
})
