import { spawn } from 'node:child_process'

/**
 * A well-behaved client in a process of its own: each path asked every `everyMs` on a
 * kept-alive connection of its own, each answer timed. Its own process, so that a test
 * that loads the server from its event loop does not add its own delays to the timings.
 */

export interface ProbeAnswer {
  readonly path: string
  readonly status: number
  /** From sending the request to the last byte of its answer. */
  readonly ms: number
  /** When it was sent, from the probe's start. */
  readonly atMs: number
}

export interface ProbeResult {
  readonly answers: readonly ProbeAnswer[]
  /** Requests that got no answer (an error, or none within the probe's timeout). */
  readonly failures: readonly string[]
}

export interface LatencyProbe {
  stop(): Promise<ProbeResult>
}

/** The probe's own script: it runs until its standard input closes, then prints its result. */
const SCRIPT = `
const http = require('node:http')
const [baseUrl, everyMs, timeoutMs, ...paths] = process.argv.slice(1)
const answers = [], failures = []
let stopping = false
const begin = performance.now()
const ask = (path, agent) => new Promise((resolve) => {
  const started = performance.now()
  const request = http.get(baseUrl + path, { agent, timeout: Number(timeoutMs) }, (response) => {
    response.resume()
    response.on('end', () => { answers.push({ path, status: response.statusCode, ms: performance.now() - started, atMs: started - begin }); resolve() })
  })
  request.on('timeout', () => request.destroy(new Error('no answer within ' + timeoutMs + ' ms')))
  request.on('error', (error) => { failures.push(path + ': ' + error.message); resolve() })
})
const loops = paths.map(async (path) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  while (!stopping) {
    const next = performance.now() + Number(everyMs)
    await ask(path, agent)
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())))
  }
})
process.stdin.on('data', () => {})
process.stdin.on('end', async () => {
  stopping = true
  await Promise.all(loops)
  process.stdout.write(JSON.stringify({ answers, failures }))
})
`

export function startLatencyProbe(
  baseUrl: string,
  paths: readonly string[],
  { everyMs = 50, timeoutMs = 30_000 } = {},
): LatencyProbe {
  const child = spawn(
    process.execPath,
    ['-e', SCRIPT, baseUrl, String(everyMs), String(timeoutMs), ...paths],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  let output = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => {
    output += chunk
  })
  // 'close', not 'exit': the answer is read once the output has reached its end.
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
  return {
    stop: async () => {
      child.stdin.end()
      await exited
      return JSON.parse(output) as ProbeResult
    },
  }
}

/** The p-th percentile (0-100) of the values, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((sorted.length * p) / 100) - 1)] ?? Number.NaN
}
