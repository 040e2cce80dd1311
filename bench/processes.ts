/**
 * What the bench scripts share: server processes started for a run (killed when it
 * ends), and what /proc says about them (resident memory, CPU time).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { freePort } from '../test/helpers/ports.js'

export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}

const CLOCK_TICKS_PER_SECOND = Number(
  spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100,
)

/** The CPU time a process has spent so far (user + system), in microseconds. */
export function cpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Fields after the command name (which may hold spaces): state is [0], utime [11], stime [12].
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const ticks = Number(fields[11]) + Number(fields[12])
  return (ticks / CLOCK_TICKS_PER_SECOND) * 1_000_000
}

/** The whole machine's CPU time so far, in ticks: all of it, and the part no process used. */
export function machineTicks(): { total: number; idle: number } {
  // The first line sums every core: user nice system idle iowait irq softirq steal ...
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? ''
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number)
  return {
    total: ticks.reduce((sum, n) => sum + n, 0),
    idle: (ticks[3] ?? 0) + (ticks[4] ?? 0),
  }
}

/** The CPUs a process may run on, as `taskset` lists them (`0-1`, `0,2`). */
function affinityOf(pid: number): string {
  const shown = spawnSync('taskset', ['-c', '-p', String(pid)], { encoding: 'utf8' }).stdout
  return /list:\s*(\S+)/.exec(shown)?.[1] ?? ''
}

/** Every thread of `pid` on `cpus` from now on. */
function setAffinity(pid: number, cpus: string): void {
  spawnSync('taskset', ['-a', '-c', '-p', cpus, String(pid)], { stdio: 'ignore' })
}

/** `0-2,5` as the CPUs it names. */
function cpusOf(list: string): number[] {
  return list.split(',').flatMap((range) => {
    const [from = Number.NaN, to = from] = range.split('-').map(Number)
    return Array.from({ length: to - from + 1 }, (_, index) => from + index)
  })
}

/**
 * Runs `measure` with the server `pid` alone on one CPU and this process (autocannon, the
 * load) on the others, then gives both back every CPU they had. Left to the scheduler,
 * the two could share a core at any moment, and one server's rounds would then differ by
 * more than any change the bench is meant to show. Without `taskset` or a second CPU,
 * `measure` runs as it is.
 */
export async function onItsOwnCpu<T>(pid: number, measure: () => Promise<T>): Promise<T> {
  const mine = affinityOf(process.pid)
  const cpus = mine ? cpusOf(mine) : []
  if (cpus.length < 2 || cpus.some(Number.isNaN)) return measure()
  const theirs = affinityOf(pid)
  setAffinity(pid, String(cpus[0]))
  setAffinity(process.pid, cpus.slice(1).join(','))
  try {
    return await measure()
  } finally {
    setAffinity(pid, theirs || mine)
    setAffinity(process.pid, mine)
  }
}

export const median = (numbers: number[]) => {
  const sorted = [...numbers].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

const children: ChildProcess[] = []
process.on('exit', () => stopAll())
// Each server leads its own process group, out of reach of the terminal's Ctrl-C.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopAll()
    process.exit(130)
  })
}

/** Kills a process started by `start` and every process in its group. */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
  } catch {
    // gone already
  }
}

/** Kills every process started so far. */
export function stopAll(): void {
  for (const child of children) killGroup(child)
  children.length = 0
}

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

export interface Running {
  readonly base: string
  readonly pid: number
  stop(): void
}

/**
 * Starts `node <script>`, or a whole command given as an array (`['npm', 'start']`),
 * under `taskset -c <cpus>` when given, and resolves once `readyPath` answers 200 (or
 * fails after `timeoutMs`); `startupMs` is spawn to that 200. The process gets a group of
 * its own, so that stopping it stops what it started too (npm's child).
 */
export async function start(
  script: string | readonly string[],
  env: Record<string, string>,
  readyPath: string,
  cpus?: string,
  timeoutMs = 30_000,
): Promise<Running & { startupMs: number }> {
  const port = await freePort()
  const started = performance.now()
  const command = typeof script === 'string' ? [process.execPath, script] : [...script]
  const [program, ...args] = cpus ? ['taskset', '-c', cpus, ...command] : command
  const child = spawn(program as string, args, {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: 'ignore',
    detached: true,
  })
  children.push(child)
  const base = `http://127.0.0.1:${port}`
  await answersAt(`${base}${readyPath}`, started + timeoutMs)
  return {
    base,
    pid: child.pid ?? 0,
    startupMs: performance.now() - started,
    stop: () => killGroup(child),
  }
}
