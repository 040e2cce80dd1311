import { execFileSync } from 'node:child_process'
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig, SETTINGS } from '../../src/config/settings.js'
import { POSTGRES_URL } from '../helpers/databases.js'
import {
  FLEET_PASSWORDS,
  type FleetPgBouncer,
  HAS_COMPOSE,
  instancesOf,
  resolvedFleet,
  startFleetPgBouncer,
} from '../helpers/fleet.js'
import { HAS_PGBOUNCER } from '../helpers/pgbouncer.js'
import { FROM_BUILD, runBuilt, startServerProcess } from '../helpers/process.js'

/**
 * No value that may hold a secret is ever printed, valid or not, and the fleet takes any
 * password. Every setting that may hold one is marked so in the table; the fleet's
 * settings (deploy/compose.yaml, resolved by a real Compose implementation) start the
 * built service through the fleet's own PgBouncer, as the role its postgres-init.sh makes,
 * with passwords holding each character a URL or a shell reserves; every line of every
 * start, failed or not, is scanned for the password in each of its spellings.
 */

/** Each of / + = @ : % # ? and a space, and what a userlist or a shell could mangle. */
const PASSWORDS = ['a/b+c=d@e:f%g#h?i j', 'ab/cd+ef==', `%zz "q" 'x' \\ ;`] as const

/** The password as it is, and as a URL or a log could spell it. */
function spellings(password: string): string[] {
  return [password, encodeURIComponent(password), JSON.stringify(password).slice(1, -1)]
}

function expectNoPassword(lines: readonly string[], password: string): void {
  for (const line of lines) {
    for (const spelling of spellings(password)) expect(line).not.toContain(spelling)
  }
}

/** The ConfigError's message loadConfig throws for `env`, or '' when it accepts it. */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env)
    return ''
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    return error.message
  }
}

describe('Settings that may hold a secret', () => {
  it('are marked so in the table: every URL and every password', () => {
    for (const setting of Object.values(SETTINGS)) {
      const mayHoldSecret = /URL|PASSWORD|SECRET|TOKEN|KEY|ENDPOINT/.test(setting.name)
      expect('secret' in setting && setting.secret === true, setting.name).toBe(mayHoldSecret)
    }
  })

  it('are refused by name, their value never shown', () => {
    const secret = PASSWORDS[0]
    const invalid: Record<string, string> = {
      DATABASE_URL: `postgres://todo:${secret}@db:5432/todo`,
      DATABASE_READ_URL: `sqlite:${secret}`,
      REDIS_URL: `redis//:${secret}@redis:6379`,
      AUTH_JWKS_URL: `https//:${secret}@issuer.example/jwks`,
      OTEL_EXPORTER_OTLP_ENDPOINT: `ftp://:${secret}@collector:4318`,
    }
    for (const setting of Object.values(SETTINGS)) {
      if (!('secret' in setting) || setting.name === 'DATABASE_PASSWORD') continue
      const value = invalid[setting.name]
      expect(value, setting.name).toBeDefined()
      const message = refusal({
        DATABASE_URL: 'postgres://todo@db:5432/todo',
        [setting.name]: value as string,
      })
      expect(message).toMatch(new RegExp(`^Invalid setting ${setting.name} \\(its value is not`))
      expectNoPassword([message], secret)
    }
    // A password twice, and a lone % in a URL's password, each refused in words of their own.
    const twice = refusal({
      DATABASE_URL: 'postgres://todo:one-password@db/todo',
      DATABASE_PASSWORD: secret,
    })
    expect(twice).toContain('keep one')
    expectNoPassword([twice], secret)
    expectNoPassword([twice], 'one-password')
    expect(refusal({ DATABASE_URL: 'postgres://todo:50%zz@db/todo' })).toContain('%25')
  })

  it('take any password apart from the URL, encoded as the driver decodes it', () => {
    for (const password of PASSWORDS) {
      const config = loadConfig({
        DATABASE_URL: 'postgres://todo@db:5432/todo',
        DATABASE_READ_URL: 'postgres://todo@replica:5432/todo',
        DATABASE_PASSWORD: password,
      })
      if (config.database.kind !== 'postgres') throw new Error('not PostgreSQL')
      for (const url of [config.database.url, config.database.readUrl ?? '']) {
        expect(decodeURIComponent(new URL(url).password)).toBe(password)
      }
    }
  })
})

/** Whether `password` is the one PostgreSQL's SCRAM verifier for `role` was made from. */
async function holdsPassword(admin: pg.Client, role: string, password: string): Promise<boolean> {
  const { rows } = await admin.query<{ verifier: string }>(
    'select rolpassword as verifier from pg_authid where rolname = $1',
    [role],
  )
  const [, iterations, salt, storedKey] =
    /^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):/.exec(rows[0]?.verifier ?? '') ?? []
  const salted = pbkdf2Sync(
    password,
    Buffer.from(salt ?? '', 'base64'),
    Number(iterations),
    32,
    'sha256',
  )
  const clientKey = createHmac('sha256', salted).update('Client Key').digest()
  return createHash('sha256').update(clientKey).digest('base64') === storedKey
}

const fleetReady = HAS_COMPOSE && HAS_PGBOUNCER && POSTGRES_URL !== undefined

describe.skipIf(!fleetReady)('The fleet’s settings with awkward passwords', () => {
  const run = randomBytes(4).toString('hex')
  const database = `fleet_secrets_${run}`
  const role = `fleet_todo_${run}`
  const admin = new pg.Client({ connectionString: POSTGRES_URL })
  const settingsOf = (password: string) => {
    const fleet = resolvedFleet({ ...FLEET_PASSWORDS, APP_DB_PASSWORD: password })
    const environment = { ...instancesOf(fleet)[0]?.[1].environment }
    // What this machine has no fleet for: Redis, the collector; and no drain to wait out.
    for (const name of ['REDIS_URL', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_SERVICE_NAME']) {
      delete environment[name]
    }
    return { fleet, environment: { ...environment, METRICS_PORT: '0', SHUTDOWN_DRAIN: '0' } }
  }

  beforeAll(async () => {
    await admin.connect()
    await admin.query(`create database ${database}`)
  })
  afterAll(async () => {
    await admin.query(`drop database if exists ${database} with (force)`)
    await admin.query(`drop role if exists ${role}`)
    await admin.end()
  })

  it('makes the service’s role with postgres-init.sh: the database’s owner, no superuser', async () => {
    const target = new URL(POSTGRES_URL as string)
    execFileSync('sh', ['deploy/postgres-init.sh'], {
      env: {
        PATH: process.env.PATH,
        PGHOST: target.hostname,
        PGPORT: target.port || '5432',
        POSTGRES_USER: decodeURIComponent(target.username),
        POSTGRES_DB: database,
        APP_DB_USER: role,
        APP_DB_PASSWORD: PASSWORDS[0],
      },
      stdio: 'pipe',
    })
    const { rows } = await admin.query(
      `select r.rolsuper, r.rolcreatedb, r.rolcreaterole, pg_get_userbyid(d.datdba) as owner
         from pg_roles r, pg_database d where r.rolname = $1 and d.datname = $2`,
      [role, database],
    )
    expect(rows).toEqual([
      { rolsuper: false, rolcreatedb: false, rolcreaterole: false, owner: role },
    ])
    expect(await holdsPassword(admin, role, PASSWORDS[0])).toBe(true)
    expect(await holdsPassword(admin, role, 'another')).toBe(false)
  })

  for (const password of PASSWORDS) {
    describe(`a password like ${JSON.stringify(password.replace(/\w/g, 'x'))}`, () => {
      let bouncer: FleetPgBouncer | undefined
      const lines: string[] = []
      beforeAll(async () => {
        await admin.query(`alter role ${role} password ${admin.escapeLiteral(password)}`)
        bouncer = await startFleetPgBouncer(settingsOf(password).fleet, password, {
          name: database,
          user: role,
        })
      })
      afterAll(() => bouncer?.stop())
      const url = (port: number, withPassword = '') =>
        `postgres://${role}${withPassword && `:${encodeURIComponent(withPassword)}`}@127.0.0.1:${port}/todo`

      it('starts, migrates and writes as the role, with DATABASE_PASSWORD or encoded in the URL', async () => {
        const { environment } = settingsOf(password)
        const port = bouncer?.port ?? 0
        const given = { ...environment, DATABASE_URL: url(port) }
        const encoded = { ...environment, DATABASE_URL: url(port, password), DATABASE_PASSWORD: '' }
        for (const settings of [given, encoded]) {
          const server = await startServerProcess(
            { kind: 'postgres', url: settings.DATABASE_URL, pooler: 'transaction', poolMax: 10 },
            settings,
            { entry: FROM_BUILD },
          )
          try {
            const created = await server.request('POST', '/api/v1/todos', {
              body: { todoTitle: 'x' },
            })
            expect(created.status).toBe(201)
          } finally {
            server.kill('SIGTERM')
            expect((await server.exited).code).toBe(0)
            lines.push(...server.stdoutLines, ...server.stderrLines)
          }
        }
        const inDatabase = new URL(POSTGRES_URL as string)
        inDatabase.pathname = `/${database}`
        const owners = new pg.Client({ connectionString: inDatabase.toString() })
        await owners.connect()
        const { rows } = await owners
          .query(`select distinct tableowner as owner from pg_tables where schemaname = 'public'`)
          .finally(() => owners.end())
        expect(rows).toEqual([{ owner: role }])
        expectNoPassword(lines, password)
      })

      it('fails to start, in words without it, at every log level', async () => {
        const { environment } = settingsOf(password)
        const port = bouncer?.port ?? 0
        const failures = [
          // Not encoded: the URL is no URL, or names another user or password.
          { ...environment, DATABASE_URL: `postgres://${role}:${password}@127.0.0.1:${port}/todo` },
          { ...environment, DATABASE_URL: url(port), DATABASE_PASSWORD: `${password}-wrong` },
          { ...environment, DATABASE_URL: url(1) },
        ]
        for (const settings of failures) {
          for (const level of ['info', 'debug']) {
            const outcome = await runBuilt([], {
              ...settings,
              LOG_LEVEL: level,
              HOST: '127.0.0.1',
              PORT: '0',
            })
            if (outcome.status === 0) lines.push('started')
            expect(outcome.status, outcome.stderr).toBe(1)
            lines.push(...`${outcome.stdout}\n${outcome.stderr}`.split('\n'))
          }
        }
        expect(lines).not.toContain('started')
        expectNoPassword(lines, password)
      })
    })
  }
})
