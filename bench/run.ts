/**
 * `npm run bench`: the service against the physical ceiling of this machine, measured
 * interleaved (reference, ours, reference, ours, …) so that a noisy shared machine
 * affects both sides alike. Prints a table of medians and ratios, writes it as JSON.
 *
 *   npm run bench -- [--rounds 3] [--seconds 5] [--skip-1m] [--no-build]
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench   (adds PostgreSQL)
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import pg from 'pg'
import type { DatabaseConfig } from '../src/config.js'
import { loadConfig } from '../src/config.js'
import { hashPassword } from '../src/infra/crypto/argon2.js'
import { createDatabase } from '../src/infra/db/create-database.js'
import { startIdentityProvider } from '../test/helpers/identity-provider.js'
import { startOtlpReceiver } from '../test/helpers/otlp-receiver.js'
import { freePort } from '../test/helpers/ports.js'
import { startRedis } from '../test/helpers/redis.js'
import { loadMembers, memberIdOf, SEARCH_COHORT, SEARCH_PREFIX } from './load-members.js'

const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    'skip-1m': { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
  },
})
const ROUNDS = Number(options.rounds)
const SECONDS = Number(options.seconds)
const CONNECTIONS = 10
const HASH_CONCURRENCY = 4
const LARGE = options['skip-1m'] ? 100_000 : 1_000_000
const DATA_DIR = resolve('data/bench')
const PG_URL = process.env.BENCH_DATABASE_URL

// ---------------------------------------------------------------- measurement

interface Sample {
  readonly reqPerSec: number
  readonly p50: number
  readonly p99: number
  readonly peakRssMb?: number
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}

/** autocannon against one URL; with a pid, the process's peak RSS while loaded. */
async function load(
  url: string,
  request: Partial<autocannon.Request> = {},
  connections = CONNECTIONS,
  pid?: number,
): Promise<Sample> {
  let peak = 0
  const sampler = pid
    ? setInterval(() => {
        peak = Math.max(peak, rssMb(pid))
      }, 100)
    : undefined
  const result = await autocannon({
    url,
    connections,
    duration: SECONDS,
    requests: [{ method: 'GET', ...request }],
  })
  if (sampler) clearInterval(sampler)
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`)
  }
  return {
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ...(pid && { peakRssMb: peak }),
  }
}

/** `work` run by `concurrency` loops for SECONDS: operations per second and latencies. */
async function loop(concurrency: number, work: () => Promise<unknown>): Promise<Sample> {
  const latencies: number[] = []
  const end = performance.now() + SECONDS * 1000
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const started = performance.now()
        await work()
        latencies.push(performance.now() - started)
      }
    }),
  )
  latencies.sort((a, b) => a - b)
  const at = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0
  return { reqPerSec: latencies.length / SECONDS, p50: at(0.5), p99: at(0.99) }
}

const median = (numbers: number[]) => {
  const sorted = [...numbers].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

// ---------------------------------------------------------------- processes

const children: ChildProcess[] = []
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL')
})

async function answersAt(url: string, deadline: number): Promise<void> {
  while (performance.now() < deadline) {
    try {
      if ((await fetch(url)).status === 200) return
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 5))
  }
  throw new Error(`${url} did not answer 200 in time`)
}

interface Running {
  readonly base: string
  readonly pid: number
  stop(): void
}

/** Starts `node <script>` and resolves once `readyPath` answers 200; `startupMs` is spawn to that 200. */
async function start(
  script: string,
  env: Record<string, string>,
  readyPath: string,
): Promise<Running & { startupMs: number }> {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: 'ignore',
  })
  children.push(child)
  const base = `http://127.0.0.1:${port}`
  await answersAt(`${base}${readyPath}`, started + 30_000)
  return {
    base,
    pid: child.pid ?? 0,
    startupMs: performance.now() - started,
    stop: () => child.kill('SIGKILL'),
  }
}

const service = (
  database: DatabaseConfig,
  readyPath: string,
  settings: Record<string, string> = {},
) =>
  start(
    'dist/server.js',
    {
      DATABASE_URL: database.kind === 'sqlite' ? `sqlite:${database.file}` : database.url,
      LOG_LEVEL: 'info',
      ...settings,
    },
    readyPath,
  )

// ---------------------------------------------------------------- data

interface Dataset {
  readonly config: DatabaseConfig
  readonly todoId: string
  readonly memberId: string
}

/** A database with `members` generated members and one Todo; created once, reused after. */
async function dataset(config: DatabaseConfig, members: number): Promise<Dataset> {
  const database = await createDatabase(config)
  try {
    await loadMembers(database, members, (line) => console.log(`   ${line.trim()}`))
    let todo = await database.db.selectFrom('todo').select('todo_id').executeTakeFirst()
    if (!todo) {
      await database.db
        .insertInto('todo')
        .values({
          todo_id: '01a20114-a9e4-73d1-b63d-c583549b3710',
          todo_title: 'Buy milk',
          created_at: new Date().toISOString(),
        })
        .execute()
      todo = { todo_id: '01a20114-a9e4-73d1-b63d-c583549b3710' }
    }
    return { config, todoId: todo.todo_id, memberId: memberIdOf(SEARCH_COHORT + 1) }
  } finally {
    await database.close()
  }
}

async function postgresSchema(name: string): Promise<DatabaseConfig> {
  const admin = new pg.Client({ connectionString: PG_URL })
  await admin.connect()
  await admin.query(`create schema if not exists ${name}`)
  await admin.end()
  const url = new URL(PG_URL as string)
  url.searchParams.set('options', `-c search_path=${name}`)
  return loadConfig({ DATABASE_URL: url.toString() }).database
}

// ---------------------------------------------------------------- scenarios

interface Scenario {
  readonly name: string
  readonly reference: string
  /** Which figure the target is about, and the bound on ours / reference. */
  readonly target?: {
    readonly figure: 'reqPerSec' | 'p99' | 'ms'
    readonly min?: number
    readonly max?: number
  }
  measureReference(): Promise<Sample>
  measureOurs(): Promise<Sample>
}

function memberBody(sequence: number): string {
  return JSON.stringify({
    firstName: 'Bench',
    lastName: 'Post',
    genderCode: '1',
    dateOfBirth: '1990-01-01',
    emailAddress: `bench-${process.pid}-${sequence}@example.com`,
    credential: { password: 'bench-password' },
  })
}

function scenariosFor(
  label: string,
  small: Dataset,
  smallService: Running,
  largeService: Running | undefined,
  ceiling: Running,
  idLoop?: { todo: () => Promise<unknown>; member: () => Promise<unknown> },
): Scenario[] {
  const search = `/api/v1/members?name=${SEARCH_PREFIX}&size=20`
  const list: Scenario[] = [
    {
      name: `GET one Todo (${label})`,
      reference: idLoop ? 'bare pg query loop' : 'bare node:http ceiling',
      target: { figure: 'reqPerSec', min: idLoop ? 0.7 : 0.65 },
      measureReference: () => (idLoop ? loop(CONNECTIONS, idLoop.todo) : load(`${ceiling.base}/`)),
      measureOurs: () =>
        load(
          `${smallService.base}/api/v1/todos/${small.todoId}`,
          {},
          CONNECTIONS,
          smallService.pid,
        ),
    },
    {
      name: `GET one Member (${label})`,
      reference: idLoop ? 'bare pg query loop' : 'bare node:http ceiling',
      target: { figure: 'reqPerSec', min: idLoop ? 0.7 : 0.65 },
      measureReference: () =>
        idLoop ? loop(CONNECTIONS, idLoop.member) : load(`${ceiling.base}/`),
      measureOurs: () =>
        load(
          `${smallService.base}/api/v1/members/${small.memberId}`,
          {},
          CONNECTIONS,
          smallService.pid,
        ),
    },
  ]
  if (largeService) {
    list.push({
      name: `Search page of 20, ${LARGE.toLocaleString('en')} members (${label})`,
      reference: 'the same search at 10,000 members',
      target: { figure: 'p99', max: 1.5 },
      measureReference: () => load(`${smallService.base}${search}`),
      measureOurs: () => load(`${largeService.base}${search}`),
    })
  }
  let sequence = 0
  list.push({
    name: `POST a Member (${label})`,
    reference: `bare argon2id hashes, ${HASH_CONCURRENCY} at a time`,
    target: { figure: 'reqPerSec', min: 0.9 },
    measureReference: () => loop(HASH_CONCURRENCY, () => hashPassword('bench-password')),
    measureOurs: () =>
      load(
        `${smallService.base}/api/v1/members`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          setupRequest: (request) => {
            sequence += 1
            return { ...request, body: memberBody(sequence) }
          },
        },
        HASH_CONCURRENCY,
      ),
  })
  return list
}

/**
 * What each production-edge feature costs when on (ratio to the same service with it
 * off, in the same round): authentication with a valid token, the rate limit counted in
 * the process and in Redis (each limit far above what the load reaches), and tracing
 * every request to a local OTLP receiver.
 */
async function featureScenarios(small: Dataset, off: Running): Promise<Scenario[]> {
  const provider = await startIdentityProvider()
  const redis = await startRedis()
  const token = await provider.token('todos:read', { expiresIn: '2h' })
  const ready = `/api/v1/todos/${small.todoId}`
  const generous = { RATE_LIMIT: '100000000/hour' }
  const authenticated = await service(small.config, '/health/live', {
    AUTH_JWKS_URL: provider.jwksUrl,
    AUTH_ISSUER: provider.issuer,
    AUTH_AUDIENCE: provider.audience,
  })
  const limited = await service(small.config, ready, generous)
  const limitedInRedis = await service(small.config, ready, { ...generous, REDIS_URL: redis.url })
  const receiver = await startOtlpReceiver()
  const traced = await service(small.config, ready, {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  })
  process.once('beforeExit', () => {
    void provider.stop()
    void redis.stop()
    void receiver.close()
  })
  const offFigure = () => load(`${off.base}${ready}`)
  return [
    {
      name: 'GET one Todo (SQLite), authentication on (a valid bearer token)',
      reference: 'the same, every feature off',
      measureReference: offFigure,
      measureOurs: () =>
        load(`${authenticated.base}${ready}`, { headers: { authorization: `Bearer ${token}` } }),
    },
    {
      name: 'GET one Todo (SQLite), RATE_LIMIT on, counted in the process',
      reference: 'the same, every feature off',
      measureReference: offFigure,
      measureOurs: () => load(`${limited.base}${ready}`),
    },
    {
      name: 'GET one Todo (SQLite), RATE_LIMIT on, counted in Redis',
      reference: 'the same, every feature off',
      measureReference: offFigure,
      measureOurs: () => load(`${limitedInRedis.base}${ready}`),
    },
    {
      name: 'GET one Todo (SQLite), tracing on, every request sampled, exported over OTLP',
      reference: 'the same, every feature off',
      measureReference: offFigure,
      measureOurs: () => load(`${traced.base}${ready}`),
    },
  ]
}

// ---------------------------------------------------------------- run

interface Row {
  readonly scenario: string
  readonly reference: string
  readonly figure: string
  readonly referenceValue: number
  readonly oursValue: number
  readonly ratio: number
  readonly target: string
  readonly met: boolean | null
  readonly ours: { reqPerSec: number; p50: number; p99: number; peakRssMb?: number }
}

function summarize(scenario: Scenario, references: Sample[], ours: Sample[]): Row {
  const figure = scenario.target?.figure === 'p99' ? 'p99' : 'reqPerSec'
  const referenceValue = median(references.map((sample) => sample[figure]))
  const oursValue = median(ours.map((sample) => sample[figure]))
  const ratio = oursValue / referenceValue
  const { min, max } = scenario.target ?? {}
  const met = min !== undefined ? ratio >= min : max !== undefined ? ratio <= max : null
  const peaks = ours.map((sample) => sample.peakRssMb).filter((peak) => peak !== undefined)
  return {
    scenario: scenario.name,
    reference: scenario.reference,
    figure: figure === 'p99' ? 'p99 ms' : 'req/s',
    referenceValue,
    oursValue,
    ratio,
    target: min !== undefined ? `>= ${min}` : max !== undefined ? `<= ${max}` : '',
    met,
    ours: {
      reqPerSec: median(ours.map((sample) => sample.reqPerSec)),
      p50: median(ours.map((sample) => sample.p50)),
      p99: median(ours.map((sample) => sample.p99)),
      ...(peaks.length > 0 && { peakRssMb: Math.max(...peaks) }),
    },
  }
}

async function coldStart(small: Dataset): Promise<Row> {
  const references: number[] = []
  const ours: number[] = []
  for (let round = 0; round < Math.max(ROUNDS, 5); round += 1) {
    const bare = await start('bench/references/bare-fastify.mjs', {}, '/')
    references.push(bare.startupMs)
    bare.stop()
    const ready = await service(small.config, `/api/v1/todos/${small.todoId}`)
    ours.push(ready.startupMs)
    ready.stop()
  }
  const referenceValue = median(references)
  const oursValue = median(ours)
  return {
    scenario: 'Cold start to the first 200, existing database',
    reference: 'bare Fastify server',
    figure: 'ms',
    referenceValue,
    oursValue,
    ratio: oursValue / referenceValue,
    target: '<= 1.2',
    met: oursValue / referenceValue <= 1.2,
    ours: { reqPerSec: 0, p50: oursValue, p99: Math.max(...ours) },
  }
}

function printTable(rows: Row[]): string {
  const format = (value: number) =>
    value >= 100 ? Math.round(value).toLocaleString('en') : value.toFixed(2)
  const lines = [
    '| Scenario | Reference | Figure | Reference | Ours | Ratio | Target | Met | Ours p50 / p99 ms | Peak RSS MB |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.scenario} | ${row.reference} | ${row.figure} | ${format(row.referenceValue)} | ${format(row.oursValue)} | ` +
        `${row.ratio.toFixed(2)} | ${row.target} | ${row.met === null ? '' : row.met ? 'yes' : 'NO'} | ` +
        `${row.ours.p50.toFixed(2)} / ${row.ours.p99.toFixed(2)} | ${row.ours.peakRssMb?.toFixed(0) ?? ''} |`,
    ),
  ]
  return lines.join('\n')
}

async function main(): Promise<void> {
  if (!options['no-build']) spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' })
  mkdirSync(DATA_DIR, { recursive: true })
  console.log(`Preparing data in ${DATA_DIR} (reused by later runs)`)
  const sqliteSmall = await dataset(
    { kind: 'sqlite', file: `${DATA_DIR}/members-v2-10k.sqlite` },
    10_000,
  )
  const sqliteLarge = await dataset(
    { kind: 'sqlite', file: `${DATA_DIR}/members-v2-${LARGE}.sqlite` },
    LARGE,
  )
  const pgSmall = PG_URL ? await dataset(await postgresSchema('bench_v2_10k'), 10_000) : undefined
  const pgLarge = PG_URL
    ? await dataset(await postgresSchema(`bench_v2_${LARGE}`), LARGE)
    : undefined

  console.log('Starting the targets')
  const ceiling = await start('bench/references/ceiling.mjs', {}, '/')
  const lookup = await start(
    'bench/references/sqlite-lookup.mjs',
    { SQLITE_FILE: (sqliteSmall.config as { file: string }).file },
    `/todos/${sqliteSmall.todoId}`,
  )
  const fastifyLookup = await start(
    'bench/references/fastify-sqlite-lookup.mjs',
    { SQLITE_FILE: (sqliteSmall.config as { file: string }).file },
    `/todos/${sqliteSmall.todoId}`,
  )
  const ready = (data: Dataset) => `/api/v1/todos/${data.todoId}`
  const sqliteSmallService = await service(sqliteSmall.config, ready(sqliteSmall))
  const sqliteLargeService = await service(sqliteLarge.config, ready(sqliteLarge))

  const scenarios: Scenario[] = [
    {
      name: 'GET one Todo, bare node:http + better-sqlite3 (for scale)',
      reference: 'bare node:http ceiling',
      measureReference: () => load(`${ceiling.base}/`),
      measureOurs: () => load(`${lookup.base}/todos/${sqliteSmall.todoId}`),
    },
    {
      name: 'GET one Todo, bare Fastify + better-sqlite3, logging on (for scale)',
      reference: 'bare node:http ceiling',
      measureReference: () => load(`${ceiling.base}/`),
      measureOurs: () => load(`${fastifyLookup.base}/todos/${sqliteSmall.todoId}`),
    },
    ...scenariosFor('SQLite', sqliteSmall, sqliteSmallService, sqliteLargeService, ceiling),
    ...(await featureScenarios(sqliteSmall, sqliteSmallService)),
  ]
  if (pgSmall && pgLarge && pgSmall.config.kind === 'postgres') {
    const pgSmallService = await service(pgSmall.config, ready(pgSmall))
    const pgLargeService = await service(pgLarge.config, ready(pgLarge))
    const pool = new pg.Pool({ connectionString: pgSmall.config.url, max: CONNECTIONS })
    const idLoop = {
      todo: () => pool.query('select * from todo where todo_id = $1', [pgSmall.todoId]),
      member: () =>
        pool.query(
          'select * from member m join member_credential c on c.member_id = m.member_id where m.member_id = $1',
          [pgSmall.memberId],
        ),
    }
    scenarios.push(
      ...scenariosFor('PostgreSQL', pgSmall, pgSmallService, pgLargeService, ceiling, idLoop),
    )
    process.once('beforeExit', () => void pool.end())
  }

  const samples = new Map<Scenario, { references: Sample[]; ours: Sample[] }>()
  for (let round = 1; round <= ROUNDS; round += 1) {
    console.log(`Round ${round} of ${ROUNDS}`)
    for (const scenario of scenarios) {
      const entry = samples.get(scenario) ?? { references: [], ours: [] }
      entry.references.push(await scenario.measureReference())
      entry.ours.push(await scenario.measureOurs())
      samples.set(scenario, entry)
      const last = entry.ours.at(-1)
      console.log(
        `  ${scenario.name}: ${Math.round(last?.reqPerSec ?? 0)} req/s, p99 ${last?.p99} ms`,
      )
    }
  }
  const rows = scenarios.map((scenario) => {
    const entry = samples.get(scenario)
    return summarize(scenario, entry?.references ?? [], entry?.ours ?? [])
  })
  for (const child of children) child.kill('SIGKILL')
  children.length = 0
  console.log('Cold start')
  rows.push(await coldStart(sqliteSmall))

  const peak = Math.max(...rows.map((row) => row.ours.peakRssMb ?? 0))
  const table = printTable(rows)
  console.log(
    `\n${table}\n\nPeak RSS of the service under GET load: ${peak.toFixed(0)} MB (target <= 120 MB)`,
  )
  mkdirSync('test-output', { recursive: true })
  writeFileSync(
    'test-output/bench-results.json',
    `${JSON.stringify({ date: new Date().toISOString(), rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS, peakRssMb: peak, rows }, null, 2)}\n`,
  )
  console.log('Written to test-output/bench-results.json')
  process.exit(0)
}

await main()
