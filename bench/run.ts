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
import { coldStarts } from './cold-starts.js'
import { type Dataset, dataset, postgresSchema } from './datasets.js'
import { loadAlone, type Sample, whileWarmingUp } from './measure-load.js'
import { type Running, start, stopAll } from './processes.js'
import { printTable, rowsOf } from './results.js'
import {
  BUILD,
  DATA_DIR,
  GET_CONNECTIONS,
  LARGE,
  PG_URL,
  ROUNDS,
  SECONDS,
  WARM_UP_REQUESTS,
  wanted,
} from './run-options.js'
import {
  featureScenarios,
  GET_TARGETS_POSTGRES,
  GET_TARGETS_SQLITE,
  type Scenario,
  scenariosFor,
} from './scenarios.js'
import { measureSearches, printSearchTable } from './search-times.js'
import { service } from './service.js'

async function main(): Promise<void> {
  if (BUILD) spawnSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' })
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
    await whileWarmingUp(async () => {
      for (const scenario of chosen) {
        await scenario.measureReference()
        await scenario.measureOurs()
      }
    })
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
