/**
 * `npm run bench:instructions`: the instructions each server runs per answer, counted by
 * valgrind's callgrind. Where `bench:compare` measures CPU time, which on a shared machine
 * moves from one minute to the next, an instruction count hardly moves with whatever else
 * the machine does, so a change of a few per cent shows in one run. It counts neither the
 * kernel's work nor cache misses, so a change that moves memory rather than instructions
 * (the young generation's size) still needs `bench:compare`; and it counts what one core
 * would run, since V8 runs single-threaded here (its compiler and collector on the main
 * thread, all of it counted).
 *
 *   npm run bench:instructions -- --path /api/v1/members/<id> base=dist-base/server.js new=dist/server.js
 *
 * Targets are given as to `bench:compare` (`name=script[,VARIABLE=value...]`, scripts
 * under bench/references/ asked for the path without /api/v1). Each server runs under
 * valgrind with counting off through `--warm-up` answers, then answers `--windows` windows
 * of `--answers` each, counted one window at a time. The first windows still hold V8
 * compiling what the warm-up made hot: the figure is the median of the windows after
 * `--settle`. Runs the targets one after another; about two minutes each. Needs valgrind
 * (Debian's package; `.ci/run` does not install it, as no test uses it).
 *
 * `--simulate` has callgrind simulate the caches and branch predictors too (slower) and
 * adds, per answer, the first-level instruction and data cache misses and the mispredicted
 * branches: what besides the instructions makes one answer's CPU time longer than
 * another's. It adds the misses of the last cache level too, which callgrind sizes from
 * what the machine reports, and under a hypervisor that can be far larger than any cache
 * of the processor, so that hardly anything misses it. `--last-level 1048576,16,64`
 * (bytes, ways, line bytes) simulates a second level of that size instead, such as a
 * core has of its own, and counts what leaves it.
 *
 * `--keep DIR` keeps each window's dump as DIR/<name>.<window>, for `callgrind_annotate`:
 * which functions of Node, V8's builtins and runtime, and the native libraries differ
 * (V8's compiled JavaScript is counted, but under no name).
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { median, start } from './processes.js'
import { type Target, targetOf } from './targets.js'

const { values: options, positionals: targets } = parseArgs({
  allowPositionals: true,
  options: {
    path: { type: 'string' },
    'warm-up': { type: 'string', default: '5000' },
    windows: { type: 'string', default: '5' },
    settle: { type: 'string', default: '2' },
    answers: { type: 'string', default: '2000' },
    connections: { type: 'string', default: '10' },
    simulate: { type: 'boolean', default: false },
    'last-level': { type: 'string' },
    keep: { type: 'string' },
  },
})
if (
  !options.path ||
  targets.length < 1 ||
  Number(options.windows) <= Number(options.settle) ||
  (options['last-level'] !== undefined &&
    (!options.simulate || !/^\d+,\d+,\d+$/.test(options['last-level'])))
) {
  console.error(
    'usage: npm run bench:instructions -- --path <path> [--windows N --settle M, N > M] [--simulate [--last-level SIZE,WAYS,LINE]] name=script[,VAR=value...] ...',
  )
  process.exit(2)
}
/** Under valgrind a server starts some thirty times slower. */
const START_TIMEOUT_MS = 300_000

/** `amount` answers over `connections` connections; all must be 2xx. */
async function answer(url: string, amount: number): Promise<void> {
  const result = await autocannon({
    url,
    amount,
    connections: Number(options.connections),
    timeout: 120,
  })
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(
      `${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
    )
  }
}

/**
 * callgrind_control talks to the server through pipes named with this prefix and the
 * HOST variable, which `start` sets to 127.0.0.1 for the server.
 */
const callgrind = (vgdbPrefix: string, pid: number, ...args: string[]) =>
  execFileSync('callgrind_control', [`--vgdb-prefix=${vgdbPrefix}`, ...args, String(pid)], {
    env: { ...process.env, HOST: '127.0.0.1' },
    stdio: 'ignore',
  })

/** What `--simulate` adds, as sums of callgrind's events. */
const SIMULATED = {
  'I1 misses': ['I1mr'],
  'D1 misses': ['D1mr', 'D1mw'],
  'branches mispredicted': ['Bcm', 'Bim'],
  'last-level misses': ['ILmr', 'DLmr', 'DLmw'],
} as const
type Figure = 'instructions' | keyof typeof SIMULATED
const FIGURES: readonly Figure[] = [
  'instructions',
  ...(options.simulate ? (Object.keys(SIMULATED) as (keyof typeof SIMULATED)[]) : []),
]

/** The figures counted in one dump (its `events:` and `totals:` lines). */
function totalsOf(file: string): Record<Figure, number> {
  const text = readFileSync(file, 'utf8')
  const events = /^events: (.+)$/m.exec(text)?.[1]?.split(' ')
  const totals = /^(?:totals|summary): (.+)$/m.exec(text)?.[1]?.split(' ').map(Number)
  if (!events || !totals) throw new Error(`${file}: no totals`)
  const event = (name: string) => totals[events.indexOf(name)] ?? 0
  const figures = { instructions: event('Ir') } as Record<Figure, number>
  for (const [figure, names] of Object.entries(SIMULATED)) {
    figures[figure as Figure] = names.reduce((sum, name) => sum + event(name), 0)
  }
  return figures
}

async function measure(target: Target): Promise<Record<Figure, number>[]> {
  if (options.keep) mkdirSync(options.keep, { recursive: true })
  const directory = mkdtempSync(join(tmpdir(), 'instructions-'))
  const out = join(directory, 'callgrind.out')
  const vgdbPrefix = join(directory, 'vgdb')
  const command = [
    'valgrind',
    '--tool=callgrind',
    ...(options.simulate ? ['--cache-sim=yes', '--branch-sim=yes'] : []),
    ...(options['last-level'] ? [`--LL=${options['last-level']}`] : []),
    '--instr-atstart=no',
    // V8 writes machine code into memory it then runs.
    '--smc-check=all-non-file',
    `--callgrind-out-file=${out}`,
    `--vgdb-prefix=${vgdbPrefix}`,
    process.execPath,
    '--single-threaded',
    ...target.nodeFlags,
    target.script,
  ]
  const server = await start(command, target.env, target.path, undefined, START_TIMEOUT_MS)
  try {
    const url = `${server.base}${target.path}`
    const amount = Number(options.answers)
    await answer(url, Number(options['warm-up']))
    callgrind(vgdbPrefix, server.pid, '--instr=on')
    const perAnswer: Record<Figure, number>[] = []
    for (let window = 1; window <= Number(options.windows); window += 1) {
      callgrind(vgdbPrefix, server.pid, '--zero')
      await answer(url, amount)
      callgrind(vgdbPrefix, server.pid, '--dump')
      const totals = totalsOf(`${out}.${window}`)
      if (options.keep)
        copyFileSync(`${out}.${window}`, join(options.keep, `${target.name}.${window}`))
      perAnswer.push(
        Object.fromEntries(FIGURES.map((figure) => [figure, totals[figure] / amount])) as Record<
          Figure,
          number
        >,
      )
    }
    return perAnswer
  } finally {
    server.stop()
    rmSync(directory, { recursive: true, force: true })
  }
}

const settle = Number(options.settle)
interface Row {
  readonly name: string
  /** Each figure's median over the settled windows. */
  readonly figures: Record<Figure, number>
  readonly windows: number[]
}
const rows: Row[] = []
for (const spec of targets) {
  const target = targetOf(spec, options.path as string)
  const measured = await measure(target)
  const settled = measured.slice(settle)
  const figures = Object.fromEntries(
    FIGURES.map((figure) => [figure, median(settled.map((window) => window[figure]))]),
  ) as Record<Figure, number>
  const windows = measured.map((window) => window.instructions)
  rows.push({ name: target.name, figures, windows })
  const listed = windows.map((count) => Math.round(count)).join(' ')
  console.log(
    `${target.name}: ${Math.round(figures.instructions)} instructions per answer (windows ${listed})`,
  )
}
const first = rows[0]
const perAnswer = FIGURES.map((figure) => `${figure} per answer | ratio to ${first?.name}`)
console.log(`\n| Server | ${perAnswer.join(' | ')} | Instructions by window |`)
console.log(`|---|${FIGURES.map(() => '---|---|').join('')}---|`)
for (const row of rows) {
  const cells = FIGURES.map((figure) => {
    const ratio = row.figures[figure] / (first?.figures[figure] ?? Number.NaN)
    return `${Math.round(row.figures[figure])} | ${ratio.toFixed(3)}`
  })
  const listed = row.windows.map((count) => Math.round(count)).join(' ')
  console.log(`| ${row.name} | ${cells.join(' | ')} | ${listed} |`)
}
process.exit(0)
