import { execFileSync } from 'node:child_process'
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stdoutDestination } from '../../src/infra/logging/stdout-destination.js'
import { type IsolatedDatabase, SQLITE_TARGET } from '../helpers/databases.js'
import {
  FROM_BUILD,
  killLeftoverProcesses,
  type ProcessExit,
  type ServerProcess,
  startServerProcess,
} from '../helpers/process.js'
import { pause } from '../helpers/time.js'

/**
 * Log lines are written in batches of LOG_BUFFER bytes (docs/operations/observing.md#logs). None
 * may be lost on the way out: each way is taken by the built server right after it has
 * answered REQUESTS requests, and every one of their lines must be on standard output
 * when it has exited. SIGKILL, which no process can act on, loses at most LOG_BUFFER bytes.
 */

const PROCESS_TEST = { timeout: 60_000 }
const REQUESTS = 300
const LOG_BUFFER = 4096
const PRELOAD = ['--import', './test/helpers/exit-on-sigusr2.mjs']
/** No Todo has this id: each GET is a quick 404, logged like any answer. */
const MISSING_TODO = '/api/v1/todos/01a20114-a9e4-73d1-b63d-c583549b3710'

interface WayOut {
  readonly name: string
  /** What the test sends the process to make it leave. */
  readonly signal: NodeJS.Signals
  /** EXIT_BY for the preload (test/helpers/exit-on-sigusr2.mjs). */
  readonly exitBy?: string
  readonly exit: ProcessExit
  /** The line it writes on its way out, when it writes one. */
  readonly exitMessage?: string
}

const WAYS_OUT: readonly WayOut[] = [
  { name: 'SIGTERM', signal: 'SIGTERM', exit: { code: 0, signal: null }, exitMessage: 'stopped' },
  { name: 'SIGINT', signal: 'SIGINT', exit: { code: 0, signal: null }, exitMessage: 'stopped' },
  {
    name: 'a normal exit (process.exit)',
    signal: 'SIGUSR2',
    exitBy: 'process.exit',
    exit: { code: 0, signal: null },
  },
  {
    name: 'an uncaught error',
    signal: 'SIGUSR2',
    exitBy: 'uncaught error',
    exit: { code: 1, signal: null },
    exitMessage: 'uncaught error: exiting now',
  },
  {
    name: 'an unhandled rejection',
    signal: 'SIGUSR2',
    exitBy: 'unhandled rejection',
    exit: { code: 1, signal: null },
    exitMessage: 'uncaught error: exiting now',
  },
]

/** REQUESTS GETs, one after another, each with its own X-Track. */
async function answerRequests(server: ServerProcess, prefix: string): Promise<void> {
  for (let index = 0; index < REQUESTS; index += 1) {
    const response = await server.request('GET', MISSING_TODO, {
      headers: { 'x-track': `${prefix}-${index}` },
    })
    expect(response.status).toBe(404)
  }
}

/**
 * The line the process wrote on its way out, checked to be there once and in its place:
 * every line after it was logged at or after it (pino's `time`), for a request that ends
 * as the process stops may log its line after the exit line, but none logged before may
 * come out after it.
 */
function exitLine(server: ServerProcess, message: string): Record<string, unknown> {
  const lines = server.stdoutLines.map((line) => JSON.parse(line) as Record<string, unknown>)
  const at = lines.findIndex((line) => line.msg === message)
  expect(at, server.stdoutLines.slice(-5).join('\n')).toBeGreaterThanOrEqual(0)
  const exit = lines[at] as Record<string, unknown>
  const earlier = lines
    .slice(at + 1)
    .filter((line) => (line.time as number) < (exit.time as number))
  expect(earlier).toEqual([])
  expect(lines.filter((line) => line.msg === message)).toHaveLength(1)
  return exit
}

/** The request lines of those requests that are on standard output now. */
function requestLines(server: ServerProcess, prefix: string): string[] {
  return server.stdoutLines.filter((line) => line.includes(`"track":"${prefix}-`))
}

describe('log lines on the way out (the built server, SQLite)', () => {
  let database: IsolatedDatabase | undefined
  const start = async (settings: Record<string, string> = {}) => {
    if (!database) throw new Error('the suite database is not created yet')
    return startServerProcess(
      database.config,
      { LOG_BUFFER: String(LOG_BUFFER), ...settings },
      { entry: [...PRELOAD, ...FROM_BUILD] },
    )
  }
  beforeAll(async () => {
    database = await SQLITE_TARGET.create()
  }, PROCESS_TEST.timeout)
  afterAll(async () => {
    await killLeftoverProcesses()
    await database?.drop()
  })

  for (const way of WAYS_OUT) {
    it(`loses no line on ${way.name}`, PROCESS_TEST, async () => {
      const server = await start(way.exitBy ? { EXIT_BY: way.exitBy } : {})
      await answerRequests(server, 'out')
      server.kill(way.signal)
      expect(await server.exited).toEqual(way.exit)
      expect(requestLines(server, 'out')).toHaveLength(REQUESTS)
      if (!way.exitMessage) return
      const exit = exitLine(server, way.exitMessage)
      if (way.exitBy && way.exit.code === 1) {
        expect(exit).toMatchObject({
          level: 60,
          err: { message: expect.stringMatching(/by the test$/) },
        })
      }
    })
  }

  it('loses no line on a second SIGTERM while stopping', PROCESS_TEST, async () => {
    const server = await start({ SHUTDOWN_DRAIN: '5000' })
    await answerRequests(server, 'twice')
    server.kill('SIGTERM')
    while (!server.logMessages().some((message) => message.startsWith('draining'))) await pause(20)
    server.kill('SIGTERM')
    expect(await server.exited).toEqual({ code: 1, signal: null })
    expect(requestLines(server, 'twice')).toHaveLength(REQUESTS)
    exitLine(server, 'signalled again while stopping: exiting now')
  })

  it("writes a quiet moment's lines within a second, without a way out", PROCESS_TEST, async () => {
    const server = await start()
    await server.request('GET', MISSING_TODO, { headers: { 'x-track': 'quiet-0' } })
    const deadline = performance.now() + 2_000
    while (requestLines(server, 'quiet').length === 0 && performance.now() < deadline) {
      await pause(20)
    }
    expect(requestLines(server, 'quiet')).toHaveLength(1)
    server.kill('SIGTERM')
    expect(await server.exited).toEqual({ code: 0, signal: null })
  })

  it('loses at most LOG_BUFFER bytes on SIGKILL', PROCESS_TEST, async () => {
    const server = await start()
    await answerRequests(server, 'killed')
    server.kill('SIGKILL')
    expect(await server.exited).toEqual({ code: null, signal: 'SIGKILL' })
    const written = requestLines(server, 'killed')
    const shortest = Math.min(...written.map((line) => Buffer.byteLength(line) + 1))
    const lost = REQUESTS - written.length
    expect(lost * shortest).toBeLessThan(LOG_BUFFER)
    // The lines written are the first ones, whole, in order.
    expect(written.map((line) => (JSON.parse(line) as { track: string }).track)).toEqual(
      Array.from({ length: written.length }, (_, index) => `killed-${index}`),
    )
  })
})

describe('log lines for a standard output that takes none', () => {
  it('are held up to the bytes allowed, then dropped and counted', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'stalled-stdout-'))
    const fifo = join(folder, 'stdout')
    execFileSync('mkfifo', [fifo])
    // Read-write, so that it opens with no reader; non-blocking, as a full pipe answers.
    const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK)
    const waitingMaxBytes = 256 * 1024
    const destination = stdoutDestination(LOG_BUFFER, { fd, waitingMaxBytes })
    const line = `${JSON.stringify({ level: 30, msg: 'x'.repeat(200) })}\n`
    const lines = 10_000
    for (let index = 0; index < lines; index += 1) destination.stream.write(line)
    // The pipe holds 64 KiB and the buffer at most waitingMaxBytes: the rest is dropped.
    const held = Math.ceil((64 * 1024 + waitingMaxBytes) / line.length)
    expect(destination.linesDropped()).toBeGreaterThanOrEqual(lines - held)
    expect(destination.linesDropped()).toBeLessThan(lines)
    // The reader comes back: what was held is written, and the stream ends and closes.
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)
    let closed = false
    destination.stream.once('close', () => {
      closed = true
    })
    destination.stream.end()
    const chunk = Buffer.alloc(64 * 1024)
    while (!closed) {
      let read = 0
      try {
        read = readSync(reader, chunk)
      } catch {
        // EAGAIN: nothing to read yet
      }
      // Nothing read: the stream needs the event loop to write more, or to report its
      // close (once its fd is closed, no writer is left and every read answers 0 at once).
      if (read === 0) await pause(5)
    }
    closeSync(reader)
    rmSync(folder, { recursive: true, force: true })
  })
})
