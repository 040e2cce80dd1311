import {
  appendFileSync,
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { inject } from 'vitest'
import { TEST_PASSWORD_PATTERNS, TEST_PASSWORDS } from './members.js'

/**
 * A run-wide record of every log line the tests captured, scanned once at the end.
 *
 * Global setup creates one directory per run, `test-output/logs/run-<start time>-<pid>/`,
 * and hands it to the test workers (vitest's provide/inject). Every in-process server
 * (server.ts) and every server process (process.ts) appends the lines it captures to a
 * file of its own there, `<pid>-<n>.jsonl` (a process's standard error to
 * `<pid>-<n>.stderr.txt`). Global teardown then scans every line for `$argon2` and for
 * the passwords the suites send (members.ts), and fails the run if one occurs.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    /** This run's log directory; unset when no global setup created one. */
    runLogDir: string | undefined
  }
}

const LOGS_ROOT = fileURLToPath(new URL('../../test-output/logs/', import.meta.url))
const RUN_DIR = /^run-.+-(\d+)$/

/** What no captured log line may contain. */
export const FORBIDDEN_TEXT: readonly string[] = ['$argon2', ...TEST_PASSWORDS]
export const FORBIDDEN_PATTERNS: readonly RegExp[] = TEST_PASSWORD_PATTERNS

// ---- in the test workers ----------------------------------------------------------------

export interface LogSink {
  /** Appends text (whole lines, each ending in a newline) to the sink's file. */
  write(text: string): void
}

let sequence = 0
let warned = false

function warnOnce(error: unknown): void {
  if (warned) return
  warned = true
  console.error(`log-scan: could not record captured log lines (${String(error)})`)
}

/** The run's log directory, when running in a vitest worker of a run with the global setup. */
function runLogDir(): string | undefined {
  try {
    return inject('runLogDir')
  } catch {
    // Not in a vitest worker (a helper used from a script): nothing to record.
    return undefined
  }
}

/**
 * Creates a new, empty file in `dir` and returns its path. Created exclusively: a worker
 * process may run several test files, each with a fresh copy of this module and `sequence`.
 */
function reserveFile(dir: string, extension: string): string | undefined {
  for (let attempt = 0; attempt < 1000; attempt++) {
    sequence += 1
    const file = join(dir, `${process.pid}-${sequence}.${extension}`)
    try {
      closeSync(openSync(file, 'wx'))
      return file
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        warnOnce(error)
        return undefined
      }
    }
  }
  return undefined
}

/**
 * A file of this run's log directory, created on the first write, or undefined when the
 * run has none (a run without the global setup). A failure to write is reported once,
 * never thrown into the server that logs.
 */
export function openLogSink(extension = 'jsonl'): LogSink | undefined {
  const dir = runLogDir()
  if (!dir) return undefined
  let file: string | undefined
  return {
    write: (text) => {
      file ??= reserveFile(dir, extension)
      if (file === undefined) return
      try {
        appendFileSync(file, text)
      } catch (error) {
        warnOnce(error)
      }
    },
  }
}

// ---- in global setup and teardown (the main vitest process) --------------------------------

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Creates this run's directory. Directories of earlier runs whose vitest process has
 * ended are removed; those of runs still going (another `vitest run` at the same time)
 * are left alone.
 */
export function createRunLogDir(startedAt: Date): string {
  mkdirSync(LOGS_ROOT, { recursive: true })
  for (const entry of readdirSync(LOGS_ROOT)) {
    const match = RUN_DIR.exec(entry)
    if (match && !isRunning(Number(match[1]))) {
      rmSync(join(LOGS_ROOT, entry), { recursive: true, force: true })
    }
  }
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-')
  const dir = join(LOGS_ROOT, `run-${stamp}-${process.pid}`)
  mkdirSync(dir, { recursive: true })
  return dir
}

export interface Finding {
  readonly file: string
  readonly line: number
  /** The forbidden text or pattern found. */
  readonly found: string
}

export interface ScanResult {
  readonly files: number
  readonly lines: number
  readonly findings: readonly Finding[]
}

/** Every line of every file in `dir`, searched for the forbidden text and patterns. */
export function scanLogDir(dir: string): ScanResult {
  const findings: Finding[] = []
  let files = 0
  let lines = 0
  for (const name of readdirSync(dir).sort()) {
    files += 1
    const text = readFileSync(join(dir, name), 'utf8')
    text.split('\n').forEach((content, index) => {
      if (content === '') return
      lines += 1
      for (const needle of FORBIDDEN_TEXT) {
        if (content.includes(needle)) findings.push({ file: name, line: index + 1, found: needle })
      }
      for (const pattern of FORBIDDEN_PATTERNS) {
        if (pattern.test(content))
          findings.push({ file: name, line: index + 1, found: `${pattern}` })
      }
    })
  }
  return { files, lines, findings }
}

/**
 * The teardown's verdict: a summary line when the logs are clean; otherwise each finding
 * on standard error and a failed run (vitest ignores an error thrown by a global
 * teardown, but keeps the process's exit code).
 */
export function failRunOnLeaks(dir: string): void {
  const { files, lines, findings } = scanLogDir(dir)
  if (findings.length === 0) {
    console.log(`Log scan: ${lines} captured log lines in ${files} files, no password or hash.`)
    return
  }
  process.exitCode = 1
  const shown = findings
    .slice(0, 20)
    .map(({ file, line, found }) => `  ${join(dir, file)}:${line}: ${found}`)
  console.error(
    [
      `Log scan FAILED: ${findings.length} log lines of this run contain a password or a password hash:`,
      ...shown,
      ...(findings.length > shown.length
        ? [`  ... and ${findings.length - shown.length} more`]
        : []),
    ].join('\n'),
  )
}
