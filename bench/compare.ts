/**
 * `npm run bench:compare`: the CPU time per answer of servers loaded side by side.
 * Every server runs on the same core and gets the same request rate at the same time,
 * so the noise of a shared machine falls on all of them alike; each round reports each
 * server's CPU per answer as a ratio to the first one's. Far steadier than measuring one
 * after the other: it is how the changes of docs/performance.md were measured. `--rounds`
 * is rounded up to a multiple of the number of servers (legs, below).
 *
 *   npm run bench:compare -- --path /api/v1/todos/<id> base=dist-base/server.js new=dist/server.js
 *   npm run bench:compare -- --path /api/v1/todos/<id> \
 *     ref=bench/references/fastify-lookup.mjs ours=dist/server.js warn=dist/server.js,LOG_LEVEL=warn
 *
 * A target is `name=script[,VARIABLE=value...]` (bench/targets.ts; `NODE_FLAGS=--a --b`
 * gives Node flags). Scripts under bench/references/ are asked for the path without its
 * /api/v1 prefix. DATABASE_URL (default: the bench's 10,000-member SQLite file, made by
 * `npm run bench`) is given to every server, and its file as SQLITE_FILE. Run it under
 * `taskset -c 0` to keep the load generator off the servers' core.
 */
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { cpuUs, median, type Running, start } from './processes.js'
import { type Target, targetOf } from './targets.js'

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
interface Measured extends Target {
  readonly cpuPerAnswer: number[]
  readonly ratios: number[]
}

const all: Measured[] = targets.map((spec) => ({
  ...targetOf(spec, options.path as string),
  cpuPerAnswer: [],
  ratios: [],
}))
const load = (server: Running, path: string, seconds: number) =>
  autocannon({
    url: `${server.base}${path}`,
    connections: Number(options.connections),
    duration: seconds,
    overallRate: Number(options.rate),
  })

/**
 * The rounds run in legs, one per target, and each leg starts the servers afresh in an
 * order rotated by one, so that every target spends as many rounds at every place in the
 * starting order. The place matters by itself: the same build started twice does not
 * measure the same, round after round. The loads are started in a rotated order every
 * round too: whichever starts first would otherwise be favoured.
 */
const legs = all.length

/** One measured round: every server loaded at once, its CPU per answer and ratio kept. */
async function measureRound(servers: Running[], round: number): Promise<void> {
  const before = servers.map((server) => cpuUs(server.pid))
  const loads: Promise<autocannon.Result>[] = []
  for (const index of all.map((_, place) => (place + round) % legs)) {
    const target = all[index] as Measured
    loads[index] = load(servers[index] as Running, target.path, Number(options.seconds))
  }
  const results = await Promise.all(loads)
  all.forEach((target, index) => {
    const result = results[index] as autocannon.Result
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.name}: failed answers`)
    const spent = cpuUs((servers[index] as Running).pid) - (before[index] as number)
    target.cpuPerAnswer.push(spent / Math.max(result.requests.total, 1))
  })
  const first = (all[0] as Measured).cpuPerAnswer.at(-1) as number
  for (const target of all) target.ratios.push((target.cpuPerAnswer.at(-1) as number) / first)
}

const roundsPerLeg = Math.max(1, Math.ceil(Number(options.rounds) / legs))
let round = 0
for (let leg = 0; leg < legs; leg += 1) {
  const order = all.map((_, place) => (place + leg) % legs)
  const servers: Running[] = []
  for (const index of order) {
    const target = all[index] as Measured
    const command = [process.execPath, ...target.nodeFlags, target.script]
    servers[index] = await start(command, target.env, target.path, options.cpus)
  }
  // A first, unmeasured round: every server's code compiled and its caches warm, and the
  // service done compiling its remaining schemas, which it does in the background after
  // it starts listening (a shorter warm-up leaves the first round above the others).
  await Promise.all(all.map((target, index) => load(servers[index] as Running, target.path, 3)))
  const started = order.map((index) => all[index]?.name).join(', ')
  for (let inLeg = 0; inLeg < roundsPerLeg; inLeg += 1) {
    round += 1
    await measureRound(servers, round)
    const figures = all.map(
      (target) => `${target.name} ${(target.cpuPerAnswer.at(-1) as number).toFixed(1)} µs`,
    )
    console.log(`Round ${round} (started ${started}): ${figures.join(', ')}`)
  }
  for (const server of servers) server.stop()
}
/**
 * Each leg's median ratio, and their geometric mean: every server has started at every
 * place once, so the bias of a place falls on each alike.
 */
function byLeg(ratios: readonly number[]): { legs: number[]; mean: number } {
  const medians = Array.from({ length: legs }, (_, leg) =>
    median(ratios.slice(leg * roundsPerLeg, (leg + 1) * roundsPerLeg)),
  )
  const mean = Math.exp(medians.reduce((sum, ratio) => sum + Math.log(ratio), 0) / legs)
  return { legs: medians, mean }
}

console.log(
  `\n| Server | CPU µs per answer (median) | Ratio to ${all[0]?.name} (mean of the legs) | Medians by leg | Ratios by round |`,
)
console.log('|---|---|---|---|---|')
for (const target of all) {
  const { legs: medians, mean } = byLeg(target.ratios)
  const fixed = (ratios: readonly number[]) => ratios.map((ratio) => ratio.toFixed(2)).join(' ')
  console.log(
    `| ${target.name} | ${median(target.cpuPerAnswer).toFixed(1)} | ${mean.toFixed(3)} | ${fixed(medians)} | ${fixed(target.ratios)} |`,
  )
}
process.exit(0)
