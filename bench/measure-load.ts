/**
 * One measured load: autocannon against a server process, with what /proc says of the
 * process and the machine meanwhile.
 */
import autocannon from 'autocannon'
import { cpuUs, machineTicks, onItsOwnCpu, type Running, rssMb } from './processes.js'
import { CONNECTIONS, GET_CONNECTIONS, SECONDS, WARM_UP_REQUESTS } from './run-options.js'

/** True while the scenarios are loaded for warming up: `WARM_UP_REQUESTS` each, not timed. */
let warmingUp = false

/** Runs `warm` with every load sending `WARM_UP_REQUESTS` requests, untimed, instead of timed ones. */
export async function whileWarmingUp(warm: () => Promise<void>): Promise<void> {
  warmingUp = true
  await warm()
  warmingUp = false
}

export interface Sample {
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

export type Figure = 'reqPerSec' | 'p99' | 'cpuUsPerRequest' | 'peakRssMb' | 'ms'

/**
 * autocannon against one path of a server process: answers per second, latencies, the
 * process's peak RSS (sampled every 100 ms) and its CPU time per answer (from /proc).
 */
export async function load(
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
export const loadAlone = (target: Running, path: string) =>
  onItsOwnCpu(target.pid, () => load(target, path, {}, GET_CONNECTIONS))
