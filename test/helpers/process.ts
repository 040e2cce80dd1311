import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'
import { isStale, SERVER_BUILD, WEB_BUILD } from '../../scripts/build-inputs.mjs'
import { NODE_ENVIRONMENT, NODE_FLAGS } from '../../scripts/node-flags.mjs'
import { type DatabaseConfig, SETTINGS } from '../../src/config/settings.js'
import { type HttpOptions, type HttpResponse, http } from './http.js'
import { type LogSink, openLogSink } from './log-scan.js'

/**
 * The real service as a child process (`node --import tsx src/server.ts`), configured
 * only through the environment, as in production. Used where the process itself is
 * under test: signals, exit codes, several instances on one database.
 */

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const LISTENING = /^Server listening at (http:\/\/127\.0\.0\.1:(\d+))$/

export interface ProcessExit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

export interface ServerProcess {
  readonly pid: number
  readonly port: number
  readonly baseUrl: string
  /** Every line the process wrote to standard output so far (JSON log lines). */
  readonly stdoutLines: string[]
  readonly stderrLines: string[]
  /** Settles when the process has exited. */
  readonly exited: Promise<ProcessExit>
  /** The `msg` of every JSON log line so far, in order. */
  logMessages(): string[]
  kill(signal?: NodeJS.Signals): void
  request(method: string, path: string, options?: HttpOptions): Promise<HttpResponse>
}

/** The settings (DATABASE_URL, DB_POOLER, DATABASE_READ_URL) that name the given database. */
export function databaseSettingsOf(config: DatabaseConfig): Record<string, string> {
  if (config.kind === 'sqlite') return { DATABASE_URL: `sqlite:${config.file}` }
  return {
    DATABASE_URL: config.url,
    DB_POOLER: config.pooler,
    ...(config.readUrl && { DATABASE_READ_URL: config.readUrl }),
  }
}

/** How long after a process exits its output may still be arriving. */
const OUTPUT_AFTER_EXIT_MS = 2_000

const running = new Set<ChildProcess>()

/** The environment without any of the service's settings a developer may have exported. */
export function cleanEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env }
  for (const setting of Object.values(SETTINGS)) delete env[setting.name]
  for (const name of Object.keys(NODE_ENVIRONMENT)) delete env[name]
  return env
}

/** Collects the stream's non-empty lines into `lines`, and copies each to `sink` if given. */
function linesOf(
  stream: NodeJS.ReadableStream,
  lines: string[],
  onLine: () => void,
  sink?: LogSink,
): void {
  let rest = ''
  const add = (line: string) => {
    if (line.trim() === '') return
    lines.push(line)
    sink?.write(`${line}\n`)
  }
  stream.setEncoding('utf8')
  stream.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n')
    rest = parts.pop() ?? ''
    for (const line of parts) add(line)
    onLine()
  })
  stream.on('end', () => {
    add(rest)
    rest = ''
    onLine()
  })
}

function messagesOf(lines: readonly string[]): string[] {
  const messages: string[] = []
  for (const line of lines) {
    try {
      const entry = JSON.parse(line) as { msg?: unknown }
      if (typeof entry.msg === 'string') messages.push(entry.msg)
    } catch {
      // not a log line
    }
  }
  return messages
}

/**
 * How the process runs the service: the TypeScript sources, or the bundle with the Node
 * flags `npm start` and the image run it with (their memory is what production has).
 */
export const FROM_SOURCE = ['--import', 'tsx', 'src/server.ts'] as const
export const FROM_BUILD = [...NODE_FLAGS, 'dist/server.js'] as const

/**
 * `npm run build`'s server half, the bundle FROM_BUILD runs, unless dist/server.js is newer
 * than everything it is built from. Global setup calls it once, before any suite runs, as
 * buildWebAppIfStale: a suite that rebuilt it would delete it under another's server.
 */
export function buildBundleIfStale(): void {
  if (!isStale(ROOT, SERVER_BUILD)) return
  execFileSync(process.execPath, ['scripts/build.mjs', '--only=server'], {
    cwd: ROOT,
    stdio: 'pipe',
  })
}

/** The web app's files (dist/web), which the server serves at / (src/api/web/web-app.ts). */
export const WEB_APP_DIR = join(ROOT, 'dist/web')

/** `npm run build`'s web half, unless dist/web is newer than everything it is built from. */
export function buildWebAppIfStale(): void {
  if (!isStale(ROOT, WEB_BUILD)) return
  execFileSync(process.execPath, ['scripts/build.mjs', '--only=web'], { cwd: ROOT, stdio: 'pipe' })
}

export interface CommandOutcome {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs the built server (FROM_BUILD) with `args` to its exit, configured only by
 * `settings` on a clean environment: one of its commands (`backup FILE`), or a start
 * expected to fail. Killed after `timeoutMs`.
 */
export function runBuilt(
  args: readonly string[],
  settings: Record<string, string>,
  timeoutMs = 20_000,
): Promise<CommandOutcome> {
  const options = {
    cwd: ROOT,
    env: { ...cleanEnvironment(), ...NODE_ENVIRONMENT, ...settings },
    timeout: timeoutMs,
    killSignal: 'SIGKILL' as const,
  }
  return new Promise((resolve) => {
    execFile(process.execPath, [...FROM_BUILD, ...args], options, (error, stdout, stderr) => {
      // A failed run's error carries its exit code; a killed one's code is null.
      const code = error === null ? 0 : error.code
      resolve({ status: typeof code === 'number' ? code : null, stdout, stderr })
    })
  })
}

/** Exit 1 and exactly one line on standard error, holding each of `parts`. */
export function expectOneLine(outcome: CommandOutcome, ...parts: RegExp[]): void {
  expect(outcome.status, outcome.stderr).toBe(1)
  const lines = outcome.stderr.trim().split('\n')
  expect(lines, outcome.stderr).toHaveLength(1)
  for (const part of parts) expect(lines[0]).toMatch(part)
}

export interface StartOptions {
  /** What node runs (FROM_SOURCE by default, or FROM_BUILD). */
  readonly entry?: readonly string[]
  /** A whole command instead of node and `entry`: `['npm', 'start']`. */
  readonly command?: readonly string[]
  /** The folder it runs in: the repository's root by default. */
  readonly cwd?: string
  readonly startTimeoutMs?: number
}

/**
 * Starts the server on a free loopback port with `database` and extra `settings`
 * (environment variables), and resolves once it logs the address it listens at.
 */
export async function startServerProcess(
  database: DatabaseConfig,
  settings: Record<string, string> = {},
  { entry = FROM_SOURCE, command, cwd = ROOT, startTimeoutMs = 30_000 }: StartOptions = {},
): Promise<ServerProcess> {
  const [program, ...args] = command ?? [process.execPath, ...entry]
  const child = spawn(program as string, args, {
    cwd,
    env: {
      ...cleanEnvironment(),
      // Node's environment as the image and npm start give it (a command gives its own).
      ...(command ? {} : NODE_ENVIRONMENT),
      HOST: '127.0.0.1',
      PORT: '0',
      ...databaseSettingsOf(database),
      LOG_LEVEL: 'info',
      LOG_PRETTY: 'false',
      ...settings,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  // Settles once the process's output has been read to its end too ('close'): 'exit' can
  // come before the last lines, which a test reads next. A grandchild that keeps the pipes
  // open (a command's own child) cannot hold it for more than OUTPUT_AFTER_EXIT_MS.
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }))
    child.once('exit', (code, signal) => {
      running.delete(child)
      setTimeout(() => resolve({ code, signal }), OUTPUT_AFTER_EXIT_MS).unref()
    })
  })
  const stdoutLines: string[] = []
  const stderrLines: string[] = []

  const port = await new Promise<number>((resolve, reject) => {
    let settled = false
    const timer = setTimeout(() => {
      fail(new Error(`server did not start within ${startTimeoutMs} ms`))
    }, startTimeoutMs)
    function fail(error: Error): void {
      if (settled) return
      settled = true
      clearTimeout(timer)
      child.kill('SIGKILL')
      reject(
        new Error(
          `${error.message}\nstdout:\n${stdoutLines.join('\n')}\nstderr:\n${stderrLines.join('\n')}`,
        ),
      )
    }
    const look = () => {
      if (settled) return
      for (const message of messagesOf(stdoutLines)) {
        const match = LISTENING.exec(message)
        if (match) {
          settled = true
          clearTimeout(timer)
          resolve(Number(match[2]))
          return
        }
      }
    }
    // Both also go to the run's log directory, which global teardown scans.
    linesOf(child.stdout, stdoutLines, look, openLogSink())
    linesOf(child.stderr, stderrLines, () => {}, openLogSink('stderr.txt'))
    child.once('error', fail)
    exited.then(({ code, signal }) => fail(new Error(`server exited (${code ?? signal}) at start`)))
  })
  const baseUrl = `http://127.0.0.1:${port}`
  return {
    pid: child.pid as number,
    port,
    baseUrl,
    stdoutLines,
    stderrLines,
    exited,
    logMessages: () => messagesOf(stdoutLines),
    kill: (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    },
    request: (method, path, options) => http(baseUrl, method, path, options),
  }
}

/** The resident memory of a process (VmRSS, Linux), in bytes. */
export function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kilobytes = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]
  if (kilobytes === undefined) throw new Error(`no VmRSS for process ${pid}`)
  return Number(kilobytes) * 1024
}

/** Kills (SIGKILL) every server process a test left running and waits for them to exit. */
export async function killLeftoverProcesses(): Promise<void> {
  const leftovers = [...running]
  await Promise.all(
    leftovers.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve()
          child.once('exit', () => resolve())
          child.kill('SIGKILL')
        }),
    ),
  )
}
