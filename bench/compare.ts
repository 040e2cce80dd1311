/**
 * `npm run bench:compare`: the CPU time per answer of servers loaded side by side.
 * Every server runs on the same core and gets the same request rate at the same time,
 * so the noise of a shared machine falls on all of them alike; each round reports each
 * server's CPU per answer as a ratio to the first one's. Far steadier than measuring one
 * after the other: it is how the changes of docs/performance.md were measured.
 *
 *   npm run bench:compare -- --path /api/v1/todos/<id> base=dist-base/server.js new=dist/server.js
 *   npm run bench:compare -- --path /api/v1/todos/<id> \
 *     ref=bench/references/fastify-lookup.mjs ours=dist/server.js warn=dist/server.js,LOG_LEVEL=warn
 *
 * A target is `name=script[,VARIABLE=value...]`. Scripts under bench/references/ are
 * asked for the path without its /api/v1 prefix. DATABASE_URL (default: the bench's
 * 10,000-member SQLite file, made by `npm run bench`) is given to every server, and its
 * file as SQLITE_FILE. Run it under `taskset -c 0` to keep the load generator off the
 * servers' core.
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { cpuUs, median, type Running, start } from './processes.js'

const { values: options, positionals: targets } = parseArgs({
  allowPositionals: true,
  options: {
    path: { type: 'string' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '4' },
    rate: { type: 'string', default: '4000' },
    connections: { type: 'string', default: '20' },
    cpus: { type: 'string', default: '1' },
  },
})
if (!options.path || targets.length < 2) {
  console.error('usage: npm run bench:compare -- --path <path> name=script[,VAR=value...] ...')
  process.exit(2)
}
const databaseUrl =
  process.env.DATABASE_URL ?? `sqlite:${resolve('data/bench/members-v3-10k.sqlite')}`

interface Target {
  readonly name: string
  readonly server: Running
  readonly path: string
  readonly cpuPerAnswer: number[]
  readonly ratios: number[]
}

async function startTarget(spec: string): Promise<Target> {
  const [name, definition = ''] = spec.split(/=(.*)/s, 2)
  const [script = '', ...settings] = definition.split(',')
  const env: Record<string, string> = { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' }
  if (databaseUrl.startsWith('sqlite:')) env.SQLITE_FILE = databaseUrl.slice('sqlite:'.length)
  for (const setting of settings) {
    const [variable = '', value = ''] = setting.split(/=(.*)/s, 2)
    env[variable] = value
  }
  const path = script.includes('bench/references/')
    ? (options.path as string).replace(/^\/api\/v1/, '')
    : (options.path as string)
  const server = await start(script, env, path, options.cpus)
  return { name: name as string, server, path, cpuPerAnswer: [], ratios: [] }
}

const running: Target[] = []
for (const spec of targets) running.push(await startTarget(spec))
const load = (target: Target, seconds: number) =>
  autocannon({
    url: `${target.server.base}${target.path}`,
    connections: Number(options.connections),
    duration: seconds,
    overallRate: Number(options.rate),
  })

// A first, unmeasured round: every server's code compiled and its caches warm.
await Promise.all(running.map((target) => load(target, 1)))
for (let round = 1; round <= Number(options.rounds); round += 1) {
  // Each round starts the loads in another order: whichever starts first would otherwise
  // be favoured in every round (seen: 0.91 against 1.01 for one pair in the two orders).
  const startOrder = running.map((_, index) => (index + round) % running.length)
  const before = running.map((target) => cpuUs(target.server.pid))
  const loads: Promise<autocannon.Result>[] = []
  for (const index of startOrder) {
    loads[index] = load(running[index] as Target, Number(options.seconds))
  }
  const results = await Promise.all(loads)
  running.forEach((target, index) => {
    const result = results[index] as autocannon.Result
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.name}: failed answers`)
    const spent = cpuUs(target.server.pid) - (before[index] as number)
    target.cpuPerAnswer.push(spent / Math.max(result.requests.total, 1))
  })
  const first = (running[0] as Target).cpuPerAnswer.at(-1) as number
  for (const target of running) target.ratios.push((target.cpuPerAnswer.at(-1) as number) / first)
  console.log(
    `Round ${round}: ${running.map((target) => `${target.name} ${(target.cpuPerAnswer.at(-1) as number).toFixed(1)} µs`).join(', ')}`,
  )
}
console.log(
  `\n| Server | CPU µs per answer (median) | Ratio to ${running[0]?.name} (median) | Ratios by round |`,
)
console.log('|---|---|---|---|')
for (const target of running) {
  console.log(
    `| ${target.name} | ${median(target.cpuPerAnswer).toFixed(1)} | ${median(target.ratios).toFixed(3)} | ${target.ratios.map((ratio) => ratio.toFixed(2)).join(' ')} |`,
  )
}
process.exit(0)
