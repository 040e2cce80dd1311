import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { loadConfig, SETTINGS } from '../../src/config/settings.js'
import { imageFacts, PACKAGE_VERSION } from '../helpers/dockerfile.js'
import {
  COMPOSE,
  COMPOSE_FILE,
  compose,
  FLEET_PASSWORDS,
  type Fleet,
  type FleetPgBouncer,
  HAS_COMPOSE,
  iniSection,
  instancesOf,
  PGBOUNCER_INI,
  resolvedFleet,
  type Service,
  startFleetPgBouncer,
} from '../helpers/fleet.js'
import { HAS_PGBOUNCER } from '../helpers/pgbouncer.js'
import { freePort } from '../helpers/ports.js'
import { HAS_REDIS, REDIS_SERVER } from '../helpers/redis.js'
import { pause } from '../helpers/time.js'

/**
 * deploy/compose.yaml, the whole fleet in one command. Its images cannot be pulled here
 * (no public registry), so it is not brought up: a real Compose implementation (Debian's
 * docker-compose) validates it and resolves it, and every setting in it is checked
 * against the program that reads it: the service's own settings table for the three
 * instances, and Debian's HAProxy, PgBouncer and Redis for theirs, started with the very
 * files and arguments the fleet gives them.
 */

const HAPROXY = '/usr/sbin/haproxy'
const FILE = COMPOSE_FILE
const PASSWORD = FLEET_PASSWORDS.APP_DB_PASSWORD

if (!HAS_COMPOSE) {
  console.warn(`${FILE}: skipped, ${COMPOSE} is not installed (apt-get install docker-compose)`)
}

const seconds = (duration: string) => Number(/^(\d+)s$/.exec(duration)?.[1] ?? Number.NaN)

describe.skipIf(!HAS_COMPOSE)(FILE, () => {
  const fleet: Fleet = HAS_COMPOSE ? resolvedFleet() : { services: {}, networks: {} }
  const apis = instancesOf(fleet)
  const pgbouncerIni = PGBOUNCER_INI
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
        env: { PATH: process.env.PATH, ...FLEET_PASSWORDS },
      })
      expect(result.status).not.toBe(0)
      expect(result.stderr).toContain('restarts')
    } finally {
      rmSync(broken, { recursive: true, force: true })
    }
  })

  it('will not start without either database password', () => {
    for (const name of Object.keys(FLEET_PASSWORDS)) {
      const result = compose(['config', '-q'], { ...FLEET_PASSWORDS, [name]: '' })
      expect(result.status, name).not.toBe(0)
      expect(result.stderr).toContain(`set ${name}`)
    }
  })

  it('gives the service its own role’s password apart from the URL, never the superuser’s', () => {
    for (const [, api] of apis) {
      const environment = api.environment ?? {}
      expect(new URL(environment.DATABASE_URL ?? '').password).toBe('')
      expect(environment.DATABASE_PASSWORD).toBe(FLEET_PASSWORDS.APP_DB_PASSWORD)
      expect(JSON.stringify(api)).not.toContain(FLEET_PASSWORDS.POSTGRES_PASSWORD)
    }
    const postgres = fleet.services.postgres as Service
    expect(postgres.environment).toMatchObject({ POSTGRES_USER: 'postgres', POSTGRES_DB: 'todo' })
    expect(postgres.volumes).toContainEqual(
      expect.stringMatching(
        /deploy\/postgres-init\.sh:\/docker-entrypoint-initdb\.d\/[\w-]+\.sh:ro$/,
      ),
    )
  })

  it('trusts HAProxy’s fixed address alone, and keeps /metrics off the port HAProxy forwards', () => {
    const address = fleet.services.haproxy?.networks?.front?.ipv4_address ?? ''
    const subnet = fleet.networks.front?.ipam?.config[0]?.subnet ?? ''
    expect(subnet.split('.').slice(0, 3)).toEqual(address.split('.').slice(0, 3))
    expect(subnet.endsWith('/24')).toBe(true)
    for (const [, api] of apis) {
      const config = loadConfig(api.environment ?? {})
      expect(config.trustProxy).toEqual([address])
      expect(config.metricsPort).toBeGreaterThan(0)
      expect(config.metricsPort).not.toBe(config.port)
    }
  })

  it('waits for healthy dependencies, bounds every log and every container’s memory', () => {
    for (const name of ['postgres', 'pgbouncer', 'redis', 'haproxy']) {
      expect(fleet.services[name]?.healthcheck?.test[0], name).toBe('CMD')
    }
    for (const [, api] of apis) {
      expect(api.depends_on?.pgbouncer?.condition).toBe('service_healthy')
      expect(api.depends_on?.redis?.condition).toBe('service_healthy')
    }
    for (const [name, service] of Object.entries(fleet.services)) {
      expect(service.logging?.options?.['max-size'], name).toMatch(/^\d+m$/)
      expect(service.mem_limit, name).toMatch(/^\d+[mg]$/)
    }
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
      expect(
        decodeURIComponent(
          new URL(config.database.kind === 'postgres' ? config.database.url : '').password,
        ),
      ).toBe(PASSWORD)
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
      // Its labels name the release (the revision and repository come from the shell).
      expect(api.build?.args?.VERSION).toBe(PACKAGE_VERSION)
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
    // A password with the characters a shell or the userlist's format might mangle.
    const awkward = `${PASSWORD} "quoted" $HOME \\ %s`
    let bouncer: FleetPgBouncer | undefined
    beforeAll(async () => {
      bouncer = await startFleetPgBouncer(fleet, awkward)
    })
    afterAll(() => bouncer?.stop())

    const attempt = async (password: string): Promise<string> => {
      const client = new pg.Client({
        host: '127.0.0.1',
        port: bouncer?.port,
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
        return (error as Error).message
      }
    }

    it('is healthy by the fleet’s own check', () => {
      const [, program, ...args] = fleet.services.pgbouncer?.healthcheck?.test ?? []
      const port = args.indexOf('-p') + 1
      args[port] = String(bouncer?.port)
      expect(spawnSync(program ?? '', args).status).toBe(0)
    })

    it('takes the password the entrypoint writes, and refuses another', async () => {
      expect(await attempt(awkward)).toBe('connected')
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
      // The fleet's own healthcheck, pointed at this run's port.
      const [, program, ...args] = fleet.services.redis?.healthcheck?.test ?? []
      let answer = ''
      for (let tries = 0; answer === '' && tries < 50; tries += 1) {
        answer = spawnSync(program ?? '', ['-p', String(port), ...args], {
          encoding: 'utf8',
        }).stdout
        if (!answer.startsWith('PONG')) {
          answer = ''
          await pause(100)
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
