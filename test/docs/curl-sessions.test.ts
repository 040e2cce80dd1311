import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  type Exchange,
  omittedHeaders,
  parseCurl,
  parseSessions,
  type Session,
  SessionValues,
  statusLineOf,
} from '../helpers/curl-sessions.js'
import { SQLITE_TARGET } from '../helpers/databases.js'
import type { HttpResponse } from '../helpers/http.js'
import { startServer, type TestServer } from '../helpers/server.js'

/**
 * Every curl session in the manual (docs/ and its folders but the contract, and README.md)
 * is replayed against a fresh server on its own SQLite database; each documented answer
 * must match the real one: status line, every header shown (after normalisation), and the
 * body as JSON. Headers the docs leave out must be among those docs/usage.md lists as left
 * out.
 *
 * UPDATE_DOCS=1 npx vitest run test/docs   rewrites every documented answer from the
 * real one (the commands stay; ids in them follow the new answers), so the docs are
 * generated from reality; a run without it then proves they replay.
 */

const ROOT = join(import.meta.dirname, '..', '..')
const DOCS = join(ROOT, 'docs')
const UPDATE = process.env.UPDATE_DOCS === '1'

/** The contract is given to us as it is; the manual's own pages are replayed. */
const CONTRACT = 'contract/'

const files = [
  join(ROOT, 'README.md'),
  ...readdirSync(DOCS, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md') && !name.startsWith(CONTRACT))
    .sort()
    .map((name) => join(DOCS, name)),
]
const omitted = new Set(omittedHeaders(readFileSync(join(DOCS, 'usage.md'), 'utf8')))

/** Lines to replace per file in update mode: [start, end) -> new lines. */
const rewrites = new Map<string, { start: number; end: number; lines: string[] }[]>()

function answerLines(real: HttpResponse, shown: readonly string[]): string[] {
  const lines = [statusLineOf(real.status)]
  for (const [name, value] of Object.entries(real.headers)) {
    if (value === undefined) continue
    if (omitted.has(name) && !shown.includes(name)) continue
    lines.push(`${name}: ${Array.isArray(value) ? value.join(', ') : value}`)
  }
  if (real.text !== '') lines.push('', real.text)
  return lines
}

async function replay(session: Session, path: string): Promise<void> {
  const database = await SQLITE_TARGET.create()
  const server = await startServer(database.config, session.settings)
  const values = new SessionValues()
  const fileRewrites = rewrites.get(path) ?? []
  rewrites.set(path, fileRewrites)
  try {
    for (const exchange of session.exchanges) {
      await replayExchange(session, exchange, values, server, fileRewrites)
    }
  } finally {
    await server.close()
    await database.drop()
  }
}

async function replayExchange(
  session: Session,
  exchange: Exchange,
  values: SessionValues,
  server: TestServer,
  fileRewrites: { start: number; end: number; lines: string[] }[],
): Promise<void> {
  const where = `${session.file}:${exchange.line}`
  const command = exchange.commandLines.join('\n')
  const request = values.translate(parseCurl(command))
  const headers: Record<string, string> = {}
  for (const [name, value] of request.headers) headers[name.toLowerCase()] = value
  // Through the contract check too: a documented answer also holds to the OpenAPI document.
  const real = await server.request(request.method, request.path, { headers, body: request.body })
  const realHeaders: Record<string, string | undefined> = {}
  for (const [name, value] of Object.entries(real.headers)) {
    realHeaders[name] = Array.isArray(value) ? value.join(', ') : value
  }
  const documented = exchange.answer
  const shown = (documented?.headers ?? []).map(([name]) => name.toLowerCase())

  if (UPDATE) {
    // Bind documented ids to real ones first, so later commands can be rewritten.
    if (documented) {
      values.normalise(
        documented,
        { statusLine: statusLineOf(real.status), headers: realHeaders, text: real.text },
        command,
      )
    }
    const translatedCommand = exchange.commandLines.map((line) => rewriteCommandLine(line, values))
    const lines = [...translatedCommand, ...answerLines(real, shown)]
    fileRewrites.push({
      start: exchange.commandStart,
      end: exchange.answerEnd,
      lines: exchange.followed ? [...lines, ''] : lines,
    })
    return
  }

  expect(documented, `${where}: the command has no documented answer`).toBeDefined()
  if (!documented) return
  const { documented: expected, real: actual } = values.normalise(
    documented,
    { statusLine: statusLineOf(real.status), headers: realHeaders, text: real.text },
    command,
  )
  expect(actual, `${where}: ${command.replace(/\\\n\s*/g, '')}`).toEqual(expected)
  const unlisted = Object.keys(real.headers).filter(
    (name) => !shown.includes(name) && !omitted.has(name),
  )
  expect(
    unlisted,
    `${where}: headers neither shown nor listed as left out in docs/usage.md`,
  ).toEqual([])
}

/** A command line with the documented ids and If-Match/If-None-Match ETags made real. */
function rewriteCommandLine(line: string, values: SessionValues): string {
  let result = line
  for (const [doc, real] of values.idPairs()) result = result.split(doc).join(real)
  return result.replace(
    /(If-(?:None-)?Match:\s*)((?:W\/)?"[^"]*"(?:\s*,\s*(?:W\/)?"[^"]*")*)/gi,
    (_match, name: string, tags: string) =>
      name + tags.replace(/(W\/)?"[^"]*"/g, (tag) => values.realOf('etag', tag) ?? tag),
  )
}

for (const path of files) {
  const file = relative(ROOT, path)
  const sessions = parseSessions(file, readFileSync(path, 'utf8'))
  if (sessions.length === 0) continue
  describe(file, () => {
    for (const session of sessions) {
      const first = session.exchanges[0]?.commandLines[0] ?? ''
      it(`session at line ${session.line}: ${first}`, { timeout: 60_000 }, async () => {
        await replay(session, path)
      })
    }
    if (UPDATE) {
      afterAll(() => {
        const list = rewrites.get(path) ?? []
        if (list.length === 0) return
        const lines = readFileSync(path, 'utf8').split('\n')
        for (const { start, end, lines: replacement } of list.sort((a, b) => b.start - a.start)) {
          lines.splice(start, end - start, ...replacement)
        }
        writeFileSync(path, lines.join('\n'))
      })
    }
  })
}

describe('the docs', () => {
  it('have curl sessions, and list the headers they leave out', () => {
    const count = files.reduce(
      (sum, path) => sum + parseSessions(relative(ROOT, path), readFileSync(path, 'utf8')).length,
      0,
    )
    expect(count).toBeGreaterThan(0)
    expect([...omitted]).toContain('date')
  })
})
