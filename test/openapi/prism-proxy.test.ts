import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runClientSession, type SessionTarget } from '../helpers/client-session.js'
import { SQLITE_TARGET } from '../helpers/databases.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * The typed client's session (helpers/client-session.ts) through Prism 5 in proxy mode
 * (`prism proxy <document> <server>`, no --errors): Prism forwards every request to the
 * real server and validates the request and the server's answer against the server's own
 * document, marking what breaks it in an `sl-violations` response header (a JSON array
 * of { location, severity, code, message }) and in its log ("Violation: <location>
 * <message>"). Neither may show a violation, but for the request the session sends
 * invalid on purpose (which the server must answer 400).
 *
 * Proof that the check can fail: a second Prism, on a copy of the document that declares
 * the Todo's title an integer, must report the session's todo answers.
 *
 * (HEAD is left out: Prism's proxy cannot forward a HEAD answer with a JSON Content-Type.
 * The document's `servers: [{ url: '/' }]` needs no change: Prism matches the request
 * path against the document's paths and only consults `servers` for `?__server=`.)
 */

const ROOT = resolve(import.meta.dirname, '../..')
const PRISM_CLI = join(ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js')
const START_WITHIN_MS = 30_000
const LISTENING = /Prism is listening on (http:\/\/127\.0\.0\.1:\d+)/
/** The log lines that report a violation or a request Prism could not complete. */
const VIOLATION_LOG = /Violation:|Request terminated with error/

interface PrismViolation {
  readonly location: string[]
  readonly severity: string
  readonly code?: string | number
  readonly message: string
}

/** One request of the session as it went through Prism. */
interface Exchange {
  readonly request: string
  readonly status: number
  readonly violations: PrismViolation[]
}

interface Prism {
  readonly baseUrl: string
  /** Every line Prism wrote (stdout and stderr), colourless. */
  readonly lines: string[]
}

const children = new Set<ChildProcess>()

/** Ends every Prism this file started, and waits until each has exited. */
async function stopAll(): Promise<void> {
  await Promise.all(
    [...children].map(async (child) => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((done) => child.once('exit', done))
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), 3_000)
        await exited
        clearTimeout(timer)
      }
      children.delete(child)
    }),
  )
}

/** `prism proxy <document> <upstream>` on a port of its choosing; resolves once it listens. */
function startPrism(documentFile: string, upstream: string): Promise<Prism> {
  const args = ['proxy', documentFile, upstream, '--host', '127.0.0.1', '--port', '0']
  const child = spawn(process.execPath, [PRISM_CLI, ...args, '--multiprocess=false'], {
    cwd: ROOT,
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  const lines: string[] = []
  return new Promise<Prism>((ready, fail) => {
    const failWith = (why: string) => {
      clearTimeout(timer)
      fail(new Error(`prism ${args.join(' ')}: ${why}; its output:\n${lines.join('\n')}`))
    }
    const timer = setTimeout(
      () => failWith(`not listening after ${START_WITHIN_MS / 1000} s`),
      START_WITHIN_MS,
    )
    child.once('error', (error) => failWith(`did not start (${error.message})`))
    child.once('exit', (code, signal) => failWith(`exited (${signal ?? code})`))
    for (const stream of [child.stdout, child.stderr]) {
      let rest = ''
      stream.setEncoding('utf8')
      stream.on('data', (chunk: string) => {
        const parts = (rest + chunk).split('\n')
        rest = parts.pop() ?? ''
        for (const line of parts) {
          if (line.trim() === '') continue
          lines.push(line)
          const listening = LISTENING.exec(line)
          if (listening?.[1] !== undefined) {
            clearTimeout(timer)
            ready({ baseUrl: listening[1], lines })
          }
        }
      })
    }
  })
}

function violationsIn(header: string | null): PrismViolation[] {
  if (header === null) return []
  try {
    return JSON.parse(header) as PrismViolation[]
  } catch {
    // Prism truncates a long list ("Too many violations! [...").
    return [{ location: [], severity: 'Error', message: header }]
  }
}

/**
 * Runs the session through Prism: every response's violations, and the violation lines
 * of Prism's log that the session caused.
 */
async function sessionThrough(prism: Prism): Promise<{ exchanges: Exchange[]; logged: string[] }> {
  const exchanges: Exchange[] = []
  const target: SessionTarget = {
    baseUrl: prism.baseUrl,
    fetch: async (request) => {
      const response = await fetch(request)
      const url = new URL(request.url)
      exchanges.push({
        request: `${request.method} ${url.pathname}${url.search}`,
        status: response.status,
        violations: violationsIn(response.headers.get('sl-violations')),
      })
      return response
    },
  }
  const from = prism.lines.length
  await runClientSession(target)
  // Prism logs a request's violations before it answers it, and a new request's arrival
  // before anything of that request: once this marker's arrival is in the log, so is
  // every line the session caused.
  const marker = `/api/v1/todos/end-of-session-${randomBytes(4).toString('hex')}`
  await (await fetch(`${prism.baseUrl}${marker}`)).arrayBuffer()
  let end = -1
  await expect
    .poll(() => (end = prism.lines.findIndex((line, at) => at >= from && line.includes(marker))), {
      timeout: 5_000,
    })
    .toBeGreaterThanOrEqual(0)
  const logged = prism.lines.slice(from, end).filter((line) => VIOLATION_LOG.test(line))
  return { exchanges, logged }
}

/** A violation the session causes on purpose: its invalid request, answered 400. */
function intended(exchange: Exchange, violation: PrismViolation): boolean {
  return (
    exchange.status === 400 &&
    violation.location[0] === 'request' &&
    violation.location.length > 1 &&
    violation.message !== 'Selected route not found'
  )
}

const describeViolation = (exchange: Exchange, violation: PrismViolation) =>
  `${exchange.request} → ${exchange.status}: ${violation.severity} ` +
  `${violation.location.join('.')} ${violation.message}`

/** The log lines left once those of the intended violations are taken out. */
function unexplained(logged: readonly string[], exchanges: readonly Exchange[]): string[] {
  const left = [...logged]
  for (const exchange of exchanges) {
    for (const violation of exchange.violations.filter((found) => intended(exchange, found))) {
      const text = `Violation: ${violation.location.join('.')} ${violation.message}`
      const at = left.findIndex((line) => line.includes(text))
      if (at >= 0) left.splice(at, 1)
    }
  }
  return left
}

describe('The typed client’s session through Prism’s validating proxy', () => {
  const suite = serverPerSuite(SQLITE_TARGET)
  const dir = mkdtempSync(join(tmpdir(), 'prism-proxy-'))
  let faithful: Prism | undefined
  let broken: Prism | undefined
  const ready = (prism: Prism | undefined): Prism => {
    if (prism === undefined) throw new Error('Prism is not started')
    return prism
  }

  beforeAll(async () => {
    const document = suite.server.app.swagger()
    const documentFile = join(dir, 'openapi.json')
    writeFileSync(documentFile, JSON.stringify(document))
    // The deliberate mistake: the Todo's title declared an integer.
    const wrong = structuredClone(document) as unknown as {
      components: { schemas: { Todo: { properties: { todoTitle: unknown } } } }
    }
    wrong.components.schemas.Todo.properties.todoTitle = { type: 'integer' }
    const wrongFile = join(dir, 'openapi-wrong.json')
    writeFileSync(wrongFile, JSON.stringify(wrong))
    const upstream = suite.server.baseUrl
    ;[faithful, broken] = await Promise.all([
      startPrism(documentFile, upstream),
      startPrism(wrongFile, upstream),
    ])
  }, START_WITHIN_MS + 10_000)

  afterAll(async () => {
    await stopAll()
    rmSync(dir, { recursive: true, force: true })
  })

  it('reports no violation in its answers or its log', async () => {
    const { exchanges, logged } = await sessionThrough(ready(faithful))
    // The session did go through Prism, every outcome of it.
    expect(new Set(exchanges.map((exchange) => exchange.status))).toEqual(
      new Set([200, 201, 204, 400, 404, 409, 412]),
    )
    const violations = exchanges.flatMap((exchange) =>
      exchange.violations
        .filter((violation) => !intended(exchange, violation))
        .map((violation) => describeViolation(exchange, violation)),
    )
    expect(violations, 'Prism’s sl-violations headers').toEqual([])
    expect(unexplained(logged, exchanges), 'Prism’s log').toEqual([])
    // Prism did validate: the request made invalid on purpose was reported.
    const invalid = exchanges.filter((exchange) => exchange.status === 400)
    expect(
      invalid.flatMap((exchange) => exchange.violations.map((v) => v.location)),
    ).toContainEqual(['request', 'body', 'todoTitle'])
  })

  it('does report one when the document is wrong (a Todo title declared an integer)', async () => {
    const { exchanges, logged } = await sessionThrough(ready(broken))
    const reported = exchanges.flatMap((exchange) =>
      exchange.violations
        .filter((violation) => violation.location[0] === 'response')
        .map((violation) => ({ request: exchange.request, location: violation.location })),
    )
    expect(reported).toContainEqual({
      request: expect.stringMatching(/^GET \/api\/v1\/todos\/[^/]+$/),
      location: ['response', 'body', 'todoTitle'],
    })
    expect(logged).toContainEqual(expect.stringContaining('Violation: response.body.todoTitle'))
  })
})
