/**
 * `npm run bench`: the service against the physical ceiling of this machine, measured
 * interleaved (reference, ours, reference, ours, …) so that a noisy shared machine
 * affects both sides alike. Prints a table of medians and ratios, writes it as JSON.
 *
 *   npm run bench -- [--rounds 3] [--seconds 5] [--warm-up 5000] [--connections 50] [--skip-1m]
 *                    [--no-build]
 *                    [--only REGEX]   (the scenarios whose name matches; "Cold start", "Searches")
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench   (adds PostgreSQL)
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import pg from 'pg'
import { NODE_ENVIRONMENT, NODE_FLAGS } from '../scripts/node-flags.mjs'
import type { DatabaseConfig } from '../src/config/settings.js'
import { loadConfig } from '../src/config/settings.js'
import { createDatabase } from '../src/infra/db/create-database.js'
import { MIGRATIONS } from '../src/resources/index.js'
import { startIdentityProvider } from '../test/helpers/identity-provider.js'
import { startOtlpReceiver } from '../test/helpers/otlp-receiver.js'
import { startRedis } from '../test/helpers/redis.js'
import { BROAD_PREFIXES, broadSearches, firstPagePath } from './broad-searches.js'
import {
  LOADING_TIMEOUT_MS,
  loadMembers,
  memberIdOf,
  SEARCH_COHORT,
  SEARCH_PREFIX,
} from './load-members.js'
import {
  cpuUs,
  machineTicks,
  median,
  onItsOwnCpu,
  type Running,
  rssMb,
  start,
  stopAll,
} from './processes.js'

const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    'warm-up': { type: 'string', default: '5000' },
    'skip-1m': { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    connections: { type: 'string', default: '50' },
    only: { type: 'string' },
  },
})
/** Whether a part of the run (a scenario, the searches, the cold starts) is asked for. */
const ONLY = options.only === undefined ? undefined : new RegExp(options.only, 'i')
const wanted = (name: string) => ONLY === undefined || ONLY.test(name)
const ROUNDS = Number(options.rounds)
const SECONDS = Number(options.seconds)
/**
 * Requests each scenario sends to both of its targets, unmeasured, before the rounds.
 * V8 optimizes a function after enough calls, not enough seconds: at 20,000 GETs a
 * second a first round is warm within its first second, at 130 POSTs a second (each a
 * 19 MiB hash) it is not. The service's create measured 1.72 ms of event-loop CPU in its
 * first 10 s of POSTs and 1.31 ms after some 4,000; the bare hashing server has a few
 * lines to compile. Measured rounds compare the two as they run for hours, warm.
 */
const WARM_UP_REQUESTS = Number(options['warm-up'])
const CONNECTIONS = 10
/** GET by id is measured as the issue that set its targets measured it: 50 connections. */
const GET_CONNECTIONS = Number(options.connections)
const HASH_CONCURRENCY = 4
const LARGE = options['skip-1m'] ? 100_000 : 1_000_000
const DATA_DIR = resolve('data/bench')
const PG_URL = process.env.BENCH_DATABASE_URL

// ---------------------------------------------------------------- measurement

/** True while the scenarios are loaded for warming up: `WARM_UP_REQUESTS` each, not timed. */
let warmingUp = false

interface Sample {
  readonly reqPerSec: number
  readonly p50: number
  readonly p99: number
  /** Of a server process: its peak resident memory while loaded. */
  readonly peakRssMb?: number
  /** Of a server process: the CPU time (user + system) it spent per answer. */
  readonly cpuUsPerRequest?: number
  /**
   * Of the machine: the share of its CPU time no process used while loaded. A server
   * that leaves cores idle while its clients wait is held up by something other than
   * the CPU (a limit on work in flight, a lock, a wait).
   */
  readonly machineIdlePercent?: number
}

type Figure = 'reqPerSec' | 'p99' | 'cpuUsPerRequest' | 'peakRssMb' | 'ms'

/**
 * autocannon against one path of a server process: answers per second, latencies, the
 * process's peak RSS (sampled every 100 ms) and its CPU time per answer (from /proc).
 */
async function load(
  target: Running,
  path: string,
  request: Partial<autocannon.Request> = {},
  connections = CONNECTIONS,
): Promise<Sample> {
  let peak = rssMb(target.pid)
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(target.pid))
  }, 100)
  const cpuBefore = cpuUs(target.pid)
  const machineBefore = machineTicks()
  const result = await autocannon({
    url: `${target.base}${path}`,
    connections,
    ...(warmingUp ? { amount: WARM_UP_REQUESTS } : { duration: SECONDS }),
    requests: [{ method: 'GET', ...request }],
  })
  const cpu = cpuUs(target.pid) - cpuBefore
  const machineAfter = machineTicks()
  clearInterval(sampler)
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${target.base}${path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`,
    )
  }
  return {
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    peakRssMb: peak,
    cpuUsPerRequest: cpu / Math.max(result.requests.total, 1),
    machineIdlePercent:
      (100 * (machineAfter.idle - machineBefore.idle)) /
      Math.max(machineAfter.total - machineBefore.total, 1),
  }
}

/**
 * A GET load of one server at its limit, over GET_CONNECTIONS, with the server alone on
 * one CPU and the load on the others (onItsOwnCpu): what the server itself can do.
 */
const loadAlone = (target: Running, path: string) =>
  onItsOwnCpu(target.pid, () => load(target, path, {}, GET_CONNECTIONS))

// ---------------------------------------------------------------- processes

const databaseUrlOf = (database: DatabaseConfig) =>
  database.kind === 'sqlite' ? `sqlite:${database.file}` : database.url

/**
 * The service as `npm start` and the container image run it: Node's flags, then the build
 * (started with NODE_ENVIRONMENT).
 */
const SERVICE_COMMAND = [process.execPath, ...NODE_FLAGS, 'dist/server.js']

const service = (
  database: DatabaseConfig,
  readyPath: string,
  settings: Record<string, string> = {},
) =>
  start(
    SERVICE_COMMAND,
    {
      ...NODE_ENVIRONMENT,
      DATABASE_URL: databaseUrlOf(database),
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

/**
 * A database with `members` generated members and one Todo; created once, reused after.
 * The members an earlier run POSTed (`memberBody`'s addresses) are removed, so that
 * every run starts from the same rows.
 */
async function dataset(config: DatabaseConfig, members: number): Promise<Dataset> {
  const database = await createDatabase(config, {
    migrations: MIGRATIONS,
    timeoutMs: LOADING_TIMEOUT_MS,
  })
  try {
    await loadMembers(database, members, (line) => console.log(`   ${line.trim()}`))
    await database.db
      .deleteFrom('member')
      .where('email_address', 'like', `${POSTED_ADDRESS_PREFIX}%`)
      .execute()
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

/**
 * What a scenario is held to: ours / reference within `min`..`max`, or ours at most
 * `overBy` above the reference (memory, in MB).
 */
interface Target {
  readonly figure: Figure
  readonly min?: number
  readonly max?: number
  readonly overBy?: number
}

interface Scenario {
  readonly name: string
  readonly reference: string
  /** The figures it is held to; none: shown for scale, requests per second. */
  readonly targets?: readonly Target[]
  measureReference(): Promise<Sample>
  measureOurs(): Promise<Sample>
}

/** How the addresses of the members the bench POSTs begin; generated ones begin `member`. */
const POSTED_ADDRESS_PREFIX = 'bench-'

function memberBody(sequence: number): string {
  return JSON.stringify({
    firstName: 'Bench',
    lastName: 'Post',
    genderCode: '1',
    dateOfBirth: '1990-01-01',
    emailAddress: `${POSTED_ADDRESS_PREFIX}${process.pid}-${sequence}@example.com`,
    credential: { password: 'bench-password' },
  })
}

/** Counts every member posted in this run, so that no two share an e-mail address. */
let membersPosted = 0

/** POST a new member each time (a unique e-mail address, so a unique sign id). */
function memberPosts(): Partial<autocannon.Request> {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    setupRequest: (request) => {
      membersPosted += 1
      return { ...request, body: memberBody(membersPosted) }
    },
  }
}

/** The references a database's scenarios are held to. */
interface References {
  /** GET /todos/:id and /members/:id: the same lookup, bare (Fastify or node:http). */
  readonly lookup: Running
  readonly lookupName: string
  /** What GET by id is held to against `lookup`. */
  readonly getTargets: readonly Target[]
  /** The same lookup on bare Fastify doing only what the contract asks of every answer. */
  readonly floor: Running
  /** POST: a bare server that hashes each posted password with the same argon2id cost. */
  readonly hashing: Running
}

const GET_TARGETS_SQLITE: readonly Target[] = [
  { figure: 'reqPerSec', min: 1 },
  { figure: 'cpuUsPerRequest', max: 1 },
  { figure: 'peakRssMb', overBy: 15 },
]
const GET_TARGETS_POSTGRES: readonly Target[] = [
  { figure: 'reqPerSec', min: 1 },
  { figure: 'cpuUsPerRequest', max: 1 },
]
/** Shown, not held: what a floor of the contract costs against the same reference. */
const FLOOR_FIGURES: readonly Target[] = [{ figure: 'reqPerSec' }, { figure: 'cpuUsPerRequest' }]
const POST_TARGETS: readonly Target[] = [
  { figure: 'reqPerSec', min: 0.95 },
  { figure: 'peakRssMb', overBy: 30 },
]

function scenariosFor(
  label: string,
  small: Dataset,
  smallService: Running,
  largeService: Running | undefined,
  references: References,
): Scenario[] {
  /** GET by id of the service, or of the contract's floor (shown, not held). */
  const byId = (resource: 'todos' | 'members', id: string, floor = false): Scenario => {
    const what = `GET one ${resource === 'todos' ? 'Todo' : 'Member'}`
    return {
      name: floor ? `${what}, the contract's floor (${label}) (for scale)` : `${what} (${label})`,
      reference: references.lookupName,
      targets: floor ? FLOOR_FIGURES : references.getTargets,
      measureReference: () => loadAlone(references.lookup, `/${resource}/${id}`),
      measureOurs: () =>
        floor
          ? loadAlone(references.floor, `/${resource}/${id}`)
          : loadAlone(smallService, `/api/v1/${resource}/${id}`),
    }
  }
  const list: Scenario[] = [
    byId('todos', small.todoId),
    byId('members', small.memberId),
    byId('todos', small.todoId, true),
    byId('members', small.memberId, true),
  ]
  if (largeService) {
    const search = `/api/v1/members?name=${SEARCH_PREFIX}&size=20`
    list.push({
      name: `Search page of 20, ${LARGE.toLocaleString('en')} members (${label})`,
      reference: 'the same search at 10,000 members',
      targets: [{ figure: 'p99', max: 1.5 }],
      measureReference: () => load(smallService, search),
      measureOurs: () => load(largeService, search),
    })
  }
  list.push({
    name: `POST a Member (${label})`,
    reference: `bare node:http + argon2id hash of the posted password, ${HASH_CONCURRENCY} at a time`,
    targets: POST_TARGETS,
    measureReference: () => load(references.hashing, '/', memberPosts(), HASH_CONCURRENCY),
    measureOurs: () => load(smallService, '/api/v1/members', memberPosts(), HASH_CONCURRENCY),
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
  // 'exit', not 'beforeExit': main() ends with process.exit(). Each stop kills at once.
  process.once('exit', () => {
    void provider.stop()
    void redis.stop()
    void receiver.close()
  })
  const offFigure = () => load(off, ready)
  return [
    {
      name: 'GET one Todo (SQLite), authentication on (a valid bearer token)',
      reference: 'the same, every feature off',
      measureReference: offFigure,
      measureOurs: () =>
        load(authenticated, ready, { headers: { authorization: `Bearer ${token}` } }),
    },
    {
      name: 'GET one Todo (SQLite), RATE_LIMIT on, counted in the process',
      reference: 'the same, every feature off',
      measureReference: offFigure,
      measureOurs: () => load(limited, ready),
    },
    {
      name: 'GET one Todo (SQLite), RATE_LIMIT on, counted in Redis',
      reference: 'the same, every feature off',
      measureReference: offFigure,
      measureOurs: () => load(limitedInRedis, ready),
    },
    {
      name: 'GET one Todo (SQLite), tracing on, every request sampled, exported over OTLP',
      reference: 'the same, every feature off',
      measureReference: offFigure,
      measureOurs: () => load(traced, ready),
    },
  ]
}

// ---------------------------------------------------------------- broad searches

/** Each search is asked this many times per round, one at a time. */
const SEARCH_REPEATS = 2

/** The time of one GET, from sending it to the last byte of its answer. */
async function timedGet(target: Running, path: string): Promise<number> {
  const started = performance.now()
  const response = await fetch(`${target.base}${path}`)
  await response.arrayBuffer()
  if (response.status !== 200) throw new Error(`${path}: ${response.status}`)
  return performance.now() - started
}

/**
 * The narrow search and the 90 broad ones (bench/broad-searches.ts), each asked alone,
 * in milliseconds by class: `narrow` (SEARCH_PREFIX, 100 matches) and `sort / page`.
 */
async function searchTimes(target: Running): Promise<Map<string, number[]>> {
  const pages = new Map<string, number>()
  for (const prefix of BROAD_PREFIXES) {
    const first = await fetch(`${target.base}${firstPagePath(prefix)}`)
    pages.set(prefix, ((await first.json()) as { totalPages: number }).totalPages)
  }
  const times = new Map<string, number[]>()
  const add = (key: string, ms: number) => times.set(key, [...(times.get(key) ?? []), ms])
  for (let repeat = 0; repeat < SEARCH_REPEATS; repeat += 1) {
    add('narrow', await timedGet(target, `/api/v1/members?name=${SEARCH_PREFIX}&size=20`))
    for (const search of broadSearches((prefix) => pages.get(prefix) ?? 0)) {
      add(`${search.sort} / ${search.position}`, await timedGet(target, search.path))
    }
  }
  return times
}

interface SearchRow {
  readonly database: string
  readonly query: string
  /** Median and slowest, at 10,000 members and at LARGE. */
  readonly small: { p50: number; max: number }
  readonly large: { p50: number; max: number }
}

function searchRows(
  database: string,
  small: Map<string, number[]>,
  large: Map<string, number[]>,
): SearchRow[] {
  const figures = (values: readonly number[] = []) => ({
    p50: median([...values]),
    max: Math.max(...values),
  })
  return [...large.keys()].map((query) => ({
    database,
    query,
    small: figures(small.get(query)),
    large: figures(large.get(query)),
  }))
}

function printSearchTable(rows: readonly SearchRow[]): string {
  const ms = (value: number) => value.toFixed(1)
  return [
    `| Database | Search (sort / page) | 10,000 members p50 / max ms | ${LARGE.toLocaleString('en')} members p50 / max ms | Growth (p50) |`,
    '|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.database} | ${row.query} | ${ms(row.small.p50)} / ${ms(row.small.max)} | ` +
        `${ms(row.large.p50)} / ${ms(row.large.max)} | ${(row.large.p50 / row.small.p50).toFixed(1)}x |`,
    ),
  ].join('\n')
}

/** The searches alone, at both sizes, once every load is over. */
async function measureSearches(
  database: string,
  small: Running,
  large: Running | undefined,
): Promise<SearchRow[]> {
  if (!large) return []
  console.log(`Searches alone, ${database}`)
  const [smallTimes, largeTimes] = [await searchTimes(small), await searchTimes(large)]
  return searchRows(database, smallTimes, largeTimes)
}

// ---------------------------------------------------------------- run

interface Row {
  readonly scenario: string
  readonly reference: string
  readonly figure: Figure
  readonly referenceValue: number
  readonly oursValue: number
  /**
   * ours / reference, or for an `overBy` target ours - reference: the median of the
   * rounds' own comparisons, except for memory (below).
   */
  readonly comparison: number
  /** Each round's comparison: ours against the reference measured just before it. */
  readonly byRound: readonly number[]
  readonly target: string
  readonly met: boolean | null
  readonly ours: { reqPerSec: number; p50: number; p99: number }
}

const valuesOf = (samples: readonly Sample[], figure: Figure) =>
  samples.map((sample) => sample[figure as keyof Sample] ?? Number.NaN)

/** The worst of the rounds for memory (its peak), the median for everything else. */
function figureOf(samples: readonly Sample[], figure: Figure): number {
  const values = valuesOf(samples, figure)
  return figure === 'peakRssMb' ? Math.max(...values) : median(values)
}

/**
 * Each round measures the reference and then ours, seconds apart, and this machine's
 * speed drifts by a quarter within minutes (docs/performance.md): a ratio (or a
 * difference) is taken within each round, and a row gives their median. The ratio of
 * the two sides' medians could pair the reference's fast round with ours' slow one.
 */
function paired(
  of: readonly number[],
  against: readonly number[],
  difference = false,
): { comparison: number; byRound: number[] } {
  const byRound = of.map((value, round) => {
    const reference = against[round] ?? Number.NaN
    return difference ? value - reference : value / reference
  })
  return { comparison: median(byRound), byRound }
}

function rowsOf(scenario: Scenario, references: Sample[], ours: Sample[]): Row[] {
  const targets: readonly (Target | undefined)[] = scenario.targets ?? [undefined]
  return targets.map((target) => {
    const figure = target?.figure ?? 'reqPerSec'
    const referenceValue = figureOf(references, figure)
    const oursValue = figureOf(ours, figure)
    const difference = target?.overBy !== undefined
    const { comparison: ofRounds, byRound } = paired(
      valuesOf(ours, figure),
      valuesOf(references, figure),
      difference,
    )
    // Memory: the worst peak of ours against the worst of the reference's, whatever rounds.
    const worst = () => paired([oursValue], [referenceValue], difference).comparison
    const comparison = figure === 'peakRssMb' ? worst() : ofRounds
    const { min, max, overBy } = target ?? {}
    return {
      scenario: scenario.name,
      reference: scenario.reference,
      figure,
      referenceValue,
      oursValue,
      comparison,
      byRound,
      target:
        overBy !== undefined
          ? `<= +${overBy} MB`
          : min !== undefined
            ? `>= ${min}`
            : max !== undefined
              ? `<= ${max}`
              : '',
      met:
        overBy !== undefined
          ? comparison <= overBy
          : min !== undefined
            ? comparison >= min
            : max !== undefined
              ? comparison <= max
              : null,
      ours: {
        reqPerSec: median(ours.map((sample) => sample.reqPerSec)),
        p50: median(ours.map((sample) => sample.p50)),
        p99: median(ours.map((sample) => sample.p99)),
      },
    }
  })
}

/**
 * Spawn to the first 200 of GET a Todo, the median of at least 5 rounds, each round
 * starting every server once: a bare Fastify server, `node dist/server.js`, and `npm
 * start` on this built clone (which must not build again).
 */
async function coldStarts(small: Dataset): Promise<Row[]> {
  const env = { DATABASE_URL: databaseUrlOf(small.config), LOG_LEVEL: 'info' }
  const ready = `/api/v1/todos/${small.todoId}`
  const starts = {
    bare: () => start('bench/references/bare-fastify.mjs', {}, '/'),
    node: () => start(SERVICE_COMMAND, { ...NODE_ENVIRONMENT, ...env }, ready),
    npm: () => start(['npm', 'start', '--silent'], env, ready),
  }
  const times: Record<keyof typeof starts, number[]> = { bare: [], node: [], npm: [] }
  for (let round = 0; round < Math.max(ROUNDS, 5); round += 1) {
    for (const [name, startOne] of Object.entries(starts)) {
      const running = await startOne()
      times[name as keyof typeof starts].push(running.startupMs)
      running.stop()
    }
  }
  const row = (scenario: string, reference: string, of: number[], against: number[]): Row => {
    const referenceValue = median(against)
    const oursValue = median(of)
    const { comparison, byRound } = paired(of, against)
    return {
      scenario,
      reference,
      figure: 'ms',
      referenceValue,
      oursValue,
      comparison,
      byRound,
      target: '<= 1.2',
      met: comparison <= 1.2,
      ours: { reqPerSec: 0, p50: oursValue, p99: Math.max(...of) },
    }
  }
  return [
    row(
      'Cold start to the first 200, existing database',
      'bare Fastify server',
      times.node,
      times.bare,
    ),
    row(
      'Cold start through `npm start` on a built clone',
      '`node dist/server.js`',
      times.npm,
      times.node,
    ),
  ]
}

const FIGURE_NAMES: Record<Figure, string> = {
  reqPerSec: 'req/s',
  p99: 'p99 ms',
  cpuUsPerRequest: 'CPU µs/req',
  peakRssMb: 'peak RSS MB',
  ms: 'ms',
}

function printTable(rows: Row[]): string {
  const format = (value: number) =>
    value >= 100 ? Math.round(value).toLocaleString('en') : value.toFixed(2)
  const compared = (row: Row, value: number) =>
    row.target.includes('MB') ? `${value >= 0 ? '+' : ''}${value.toFixed(0)} MB` : value.toFixed(2)
  const lines = [
    '| Scenario | Reference | Figure | Reference | Ours | Ratio | By round | Target | Met | Ours p50 / p99 ms |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.scenario} | ${row.reference} | ${FIGURE_NAMES[row.figure]} | ${format(row.referenceValue)} | ` +
        `${format(row.oursValue)} | ${compared(row, row.comparison)} | ` +
        `${row.byRound.map((value) => compared(row, value)).join(', ')} | ` +
        `${row.target} | ${row.met === null ? '' : row.met ? 'yes' : 'NO'} | ` +
        `${row.ours.p50.toFixed(2)} / ${row.ours.p99.toFixed(2)} |`,
    ),
  ]
  return lines.join('\n')
}

async function main(): Promise<void> {
  if (!options['no-build']) spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' })
  mkdirSync(DATA_DIR, { recursive: true })
  console.log(`Preparing data in ${DATA_DIR} (reused by later runs)`)
  const sqliteSmall = await dataset(
    { kind: 'sqlite', file: `${DATA_DIR}/members-v3-10k.sqlite` },
    10_000,
  )
  const sqliteLarge = await dataset(
    { kind: 'sqlite', file: `${DATA_DIR}/members-v3-${LARGE}.sqlite` },
    LARGE,
  )
  const pgSmall = PG_URL ? await dataset(await postgresSchema('bench_v3_10k'), 10_000) : undefined
  const pgLarge = PG_URL
    ? await dataset(await postgresSchema(`bench_v3_${LARGE}`), LARGE)
    : undefined

  console.log('Starting the targets')
  const sqliteFile = { SQLITE_FILE: (sqliteSmall.config as { file: string }).file }
  const todoPath = (data: Dataset) => `/todos/${data.todoId}`
  const ceiling = await start('bench/references/ceiling.mjs', {}, '/')
  const lookup = await start('bench/references/http-lookup.mjs', sqliteFile, todoPath(sqliteSmall))
  const fastifyLookup = await start(
    'bench/references/fastify-lookup.mjs',
    sqliteFile,
    todoPath(sqliteSmall),
  )
  const floor = await start(
    'bench/references/contract-floor.mjs',
    sqliteFile,
    todoPath(sqliteSmall),
  )
  const hashing = await start('bench/references/argon2-hash.mjs', {}, '/health')
  const ready = (data: Dataset) => `/api/v1/todos/${data.todoId}`
  const sqliteSmallService = await service(sqliteSmall.config, ready(sqliteSmall))
  const sqliteLargeService = await service(sqliteLarge.config, ready(sqliteLarge))

  const scenarios: Scenario[] = [
    {
      name: 'GET one Todo, bare node:http + better-sqlite3 (for scale)',
      reference: 'bare node:http ceiling',
      measureReference: () => loadAlone(ceiling, '/'),
      measureOurs: () => loadAlone(lookup, todoPath(sqliteSmall)),
    },
    {
      name: 'GET one Todo, bare Fastify + better-sqlite3, default logging (for scale)',
      reference: 'bare node:http ceiling',
      measureReference: () => loadAlone(ceiling, '/'),
      measureOurs: () => loadAlone(fastifyLookup, todoPath(sqliteSmall)),
    },
    ...scenariosFor('SQLite', sqliteSmall, sqliteSmallService, sqliteLargeService, {
      lookup: fastifyLookup,
      lookupName: 'bare Fastify + the same better-sqlite3 lookup, default logging',
      getTargets: GET_TARGETS_SQLITE,
      floor,
      hashing,
    }),
    ...(await featureScenarios(sqliteSmall, sqliteSmallService)),
  ]
  let pgServices: { small: Running; large: Running } | undefined
  if (pgSmall && pgLarge && pgSmall.config.kind === 'postgres') {
    const pgSmallService = await service(pgSmall.config, ready(pgSmall))
    const pgLargeService = await service(pgLarge.config, ready(pgLarge))
    pgServices = { small: pgSmallService, large: pgLargeService }
    const pgSettings = { DATABASE_URL: pgSmall.config.url }
    const pgLookup = await start('bench/references/http-lookup.mjs', pgSettings, todoPath(pgSmall))
    const pgFastifyLookup = await start(
      'bench/references/fastify-lookup.mjs',
      pgSettings,
      todoPath(pgSmall),
    )
    const pgFloor = await start(
      'bench/references/contract-floor.mjs',
      pgSettings,
      todoPath(pgSmall),
    )
    scenarios.push(
      {
        name: 'GET one Todo, bare Fastify + pg (named), default logging (for scale)',
        reference: 'bare node:http + pg, the same query, named',
        measureReference: () => loadAlone(pgLookup, todoPath(pgSmall)),
        measureOurs: () => loadAlone(pgFastifyLookup, todoPath(pgSmall)),
      },
      ...scenariosFor('PostgreSQL', pgSmall, pgSmallService, pgLargeService, {
        lookup: pgFastifyLookup,
        lookupName: 'bare Fastify + pg, the same query, named, default logging',
        getTargets: GET_TARGETS_POSTGRES,
        floor: pgFloor,
        hashing,
      }),
    )
  }

  const chosen = scenarios.filter((scenario) => wanted(scenario.name))
  if (WARM_UP_REQUESTS > 0) {
    console.log(`Warming up: ${WARM_UP_REQUESTS} requests to each target, not measured`)
    warmingUp = true
    for (const scenario of chosen) {
      await scenario.measureReference()
      await scenario.measureOurs()
    }
    warmingUp = false
  }
  const samples = new Map<Scenario, { references: Sample[]; ours: Sample[] }>()
  for (let round = 1; round <= ROUNDS; round += 1) {
    console.log(`Round ${round} of ${ROUNDS}`)
    for (const scenario of chosen) {
      const entry = samples.get(scenario) ?? { references: [], ours: [] }
      entry.references.push(await scenario.measureReference())
      entry.ours.push(await scenario.measureOurs())
      samples.set(scenario, entry)
      const [reference, ours] = [entry.references.at(-1), entry.ours.at(-1)]
      const cpu = (sample?: Sample) => sample?.cpuUsPerRequest?.toFixed(0) ?? '?'
      const idle = (sample?: Sample) => sample?.machineIdlePercent?.toFixed(1) ?? '?'
      console.log(
        `  ${scenario.name}: ${Math.round(ours?.reqPerSec ?? 0)} req/s (reference ${Math.round(reference?.reqPerSec ?? 0)}), ` +
          `CPU ${cpu(ours)} µs/req (reference ${cpu(reference)}), p99 ${ours?.p99} ms, ` +
          `machine idle ${idle(ours)}% (reference ${idle(reference)}%)`,
      )
    }
  }
  const rows = scenarios.flatMap((scenario) => {
    const entry = samples.get(scenario)
    return entry ? rowsOf(scenario, entry.references, entry.ours) : []
  })
  const searches = wanted('Searches')
    ? [
        ...(await measureSearches('SQLite', sqliteSmallService, sqliteLargeService)),
        ...(pgServices
          ? await measureSearches('PostgreSQL', pgServices.small, pgServices.large)
          : []),
      ]
    : []
  stopAll()
  if (wanted('Cold start')) {
    console.log('Cold start')
    rows.push(...(await coldStarts(sqliteSmall)))
  }

  const table = printTable(rows)
  const missed = rows.filter((row) => row.met === false).length
  console.log(
    `\n${table}\n\n${missed === 0 ? 'Every target met.' : `${missed} target(s) NOT met.`}`,
  )
  console.log(`\nSearches, each asked alone:\n\n${printSearchTable(searches)}`)
  mkdirSync('test-output', { recursive: true })
  writeFileSync(
    'test-output/bench-results.json',
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, rounds: ROUNDS, seconds: SECONDS, getConnections: GET_CONNECTIONS, rows, searches }, null, 2)}\n`,
  )
  console.log('Written to test-output/bench-results.json')
  process.exit(0)
}

await main()
