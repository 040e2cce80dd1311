import { STATUS_CODES } from 'node:http'

/**
 * The curl sessions of the documentation: parsing them out of Markdown, turning each
 * `$ curl ...` line into a request, and normalising documented and real answers so that
 * values the server chooses (ids, time stamps, ETags, X-Track) compare by identity.
 *
 * A session is a fenced block whose info string starts with `console`. Words of the form
 * `NAME=value` after it are server settings for that session (e.g. `PAGE_FORMAT=legacy`).
 * Inside it, `$ curl ...` lines (continued with a trailing `\`) are each followed by the
 * answer curl -i prints: the status line, headers, a blank line, the body. Lines that
 * start with `# ` between exchanges are comments.
 */

export interface DocumentedAnswer {
  readonly statusLine: string
  readonly headers: readonly (readonly [string, string])[]
  readonly body: string
}

export interface Exchange {
  /** 1-based line of the `$ curl` line. */
  readonly line: number
  /** The command as written, continuation lines included. */
  readonly commandLines: readonly string[]
  /** 0-based index of the first command line, and of the line after the answer (blank lines included). */
  readonly commandStart: number
  readonly answerStart: number
  readonly answerEnd: number
  /** Whether another exchange or a comment follows in the same block. */
  readonly followed: boolean
  /** undefined when the block shows no answer yet (the update mode writes one). */
  readonly answer: DocumentedAnswer | undefined
}

export interface Session {
  readonly file: string
  /** 1-based line of the opening fence. */
  readonly line: number
  readonly settings: Record<string, string>
  readonly exchanges: readonly Exchange[]
}

const FENCE = /^(`{3,}|~{3,})\s*(.*)$/

export function parseSessions(file: string, markdown: string): Session[] {
  const lines = markdown.split('\n')
  const sessions: Session[] = []
  let index = 0
  while (index < lines.length) {
    const open = FENCE.exec(lines[index] ?? '')
    if (!open) {
      index++
      continue
    }
    const fence = open[1] as string
    const info = (open[2] ?? '').trim().split(/\s+/)
    let close = index + 1
    while (close < lines.length && !(lines[close] ?? '').startsWith(fence)) close++
    if (info[0] === 'console') {
      const settings: Record<string, string> = {}
      for (const word of info.slice(1)) {
        const setting = /^([A-Z_]+)=(.*)$/.exec(word)
        if (!setting) throw new Error(`${file}:${index + 1}: unknown info string word ${word}`)
        settings[setting[1] as string] = setting[2] as string
      }
      sessions.push({
        file,
        line: index + 1,
        settings,
        exchanges: parseBlock(file, lines, index + 1, close),
      })
    }
    index = close + 1
  }
  return sessions
}

function parseBlock(
  file: string,
  lines: readonly string[],
  start: number,
  end: number,
): Exchange[] {
  const exchanges: Exchange[] = []
  const isBoundary = (line: string) => line.startsWith('$ ') || line.startsWith('# ')
  let index = start
  while (index < end) {
    const line = lines[index] ?? ''
    if (line.trim() === '' || line.startsWith('# ')) {
      index++
      continue
    }
    if (!line.startsWith('$ ')) {
      throw new Error(`${file}:${index + 1}: expected "$ curl ..." or "# comment", got: ${line}`)
    }
    const commandStart = index
    const commandLines = [line]
    while ((lines[index] ?? '').endsWith('\\') && index + 1 < end) {
      index++
      commandLines.push(lines[index] ?? '')
    }
    index++
    const answerStart = index
    while (index < end && !isBoundary(lines[index] ?? '')) index++
    const answerEnd = index
    const answerLines = lines.slice(answerStart, answerEnd)
    while (answerLines.length > 0 && (answerLines.at(-1) ?? '').trim() === '') answerLines.pop()
    exchanges.push({
      line: commandStart + 1,
      commandLines,
      commandStart,
      answerStart,
      answerEnd,
      followed: index < end,
      answer: answerLines.length === 0 ? undefined : parseAnswer(file, answerStart, answerLines),
    })
  }
  return exchanges
}

function parseAnswer(file: string, start: number, lines: readonly string[]): DocumentedAnswer {
  const statusLine = lines[0] ?? ''
  if (!/^HTTP\/1\.1 \d{3} /.test(statusLine)) {
    throw new Error(
      `${file}:${start + 1}: expected a status line "HTTP/1.1 200 OK", got: ${statusLine}`,
    )
  }
  const headers: [string, string][] = []
  let index = 1
  for (; index < lines.length && (lines[index] ?? '') !== ''; index++) {
    const header = /^([A-Za-z0-9-]+):\s?(.*)$/.exec(lines[index] ?? '')
    if (!header) throw new Error(`${file}:${start + index + 1}: not a header line: ${lines[index]}`)
    headers.push([header[1] as string, header[2] as string])
  }
  return {
    statusLine,
    headers,
    body: lines
      .slice(index + 1)
      .join('\n')
      .trim(),
  }
}

/** Splits a command line into words like a POSIX shell: quotes, backslashes, no expansion. */
export function shellWords(text: string): string[] {
  const words: string[] = []
  let word: string | undefined
  let index = 0
  const add = (chars: string) => {
    word = (word ?? '') + chars
  }
  while (index < text.length) {
    const char = text[index] as string
    if (/\s/.test(char)) {
      if (word !== undefined) words.push(word)
      word = undefined
      index++
    } else if (char === "'") {
      const close = text.indexOf("'", index + 1)
      if (close < 0) throw new Error(`unterminated ' in: ${text}`)
      add(text.slice(index + 1, close))
      index = close + 1
    } else if (char === '"') {
      index++
      let chars = ''
      while (index < text.length && text[index] !== '"') {
        if (text[index] === '\\' && '"\\$`'.includes(text[index + 1] ?? '')) index++
        chars += text[index]
        index++
      }
      if (index >= text.length) throw new Error(`unterminated " in: ${text}`)
      add(chars)
      index++
    } else if (char === '\\') {
      add(text[index + 1] ?? '')
      index += 2
    } else {
      add(char)
      index++
    }
  }
  if (word !== undefined) words.push(word)
  return words
}

export interface CurlRequest {
  readonly method: string
  /** Path and query, e.g. /api/v1/members?name=Yama */
  readonly path: string
  /** In the order given, names as written; curl's own defaults first. */
  readonly headers: readonly (readonly [string, string])[]
  readonly body: string | undefined
}

/** The documented host; the replay sends it as the Host header, so Location reads the same. */
export const DOCUMENTED_HOST = 'localhost:8080'

/** The request curl would send for a `$ curl ...` command (the subset the docs use). */
export function parseCurl(command: string): CurlRequest {
  const words = shellWords(command.replace(/^\$\s+/, '').replace(/\\\n/g, ' '))
  if (words.shift() !== 'curl') throw new Error(`not a curl command: ${command}`)
  let method: string | undefined
  let head = false
  let url: string | undefined
  let body: string | undefined
  const given: [string, string][] = []
  while (words.length > 0) {
    const word = words.shift() as string
    const value = () => {
      const next = words.shift()
      if (next === undefined) throw new Error(`${word} needs a value: ${command}`)
      return next
    }
    switch (word) {
      case '-i':
      case '--include':
      case '-s':
      case '--silent':
        break
      case '-I':
      case '--head':
        head = true
        break
      case '-X':
      case '--request':
        method = value()
        break
      case '-H':
      case '--header': {
        const header = /^([^:\s]+):\s*(.*)$/.exec(value())
        if (!header) throw new Error(`a header must read "Name: value": ${command}`)
        given.push([header[1] as string, header[2] as string])
        break
      }
      case '-d':
      case '--data':
      case '--data-raw':
        body = (body === undefined ? '' : `${body}&`) + value()
        break
      default:
        if (word.startsWith('-')) throw new Error(`unsupported curl option ${word}: ${command}`)
        if (url !== undefined) throw new Error(`more than one URL: ${command}`)
        url = word
    }
  }
  if (url === undefined) throw new Error(`no URL: ${command}`)
  const target = new URL(/^https?:\/\//.test(url) ? url : `http://${url}`)
  if (target.host !== DOCUMENTED_HOST) {
    throw new Error(`the docs talk to ${DOCUMENTED_HOST}, not ${target.host}: ${command}`)
  }
  const has = (name: string) => given.some(([n]) => n.toLowerCase() === name)
  // What curl sends by itself, unless a -H replaces it.
  const headers: [string, string][] = [['Host', DOCUMENTED_HOST]]
  if (!has('user-agent')) headers.push(['User-Agent', 'curl/8.5.0'])
  if (!has('accept')) headers.push(['Accept', '*/*'])
  if (body !== undefined && !has('content-type')) {
    headers.push(['Content-Type', 'application/x-www-form-urlencoded'])
  }
  headers.push(...given.filter(([name]) => name.toLowerCase() !== 'host'))
  return {
    method: method ?? (head ? 'HEAD' : body !== undefined ? 'POST' : 'GET'),
    path: `${target.pathname}${target.search}`,
    headers,
    body,
  }
}

export function statusLineOf(status: number): string {
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd()
}

// --- Normalisation -------------------------------------------------------------------

export type Kind = 'id' | 'time' | 'etag' | 'track'

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}'
const DATE_TIME = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?(?:Z|[+-]\\d{2}:\\d{2})?'
/** JSON fields whose string value is an id the server assigned. */
const ID_FIELDS = new Set(['memberId', 'todoId'])

interface Token {
  readonly kind: Kind
  readonly value: string
}

/**
 * One side's view while normalising an answer: which ids it has seen so far (so they are
 * found inside messages and URLs) and the tokens met, in order.
 */
class Side {
  readonly knownIds = new Set<string>()

  /** Replaces every server-chosen value in a string through `emit`, in order. */
  scan(text: string, emit: (token: Token) => string): string {
    const known = [...this.knownIds]
      .sort((a, b) => b.length - a.length)
      .map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    const alternatives = [`(?<time>${DATE_TIME})`, `(?<uuid>${UUID})`]
    if (known.length > 0) {
      alternatives.push(`(?<![0-9A-Za-z])(?<known>${known.join('|')})(?![0-9A-Za-z])`)
    }
    return text.replace(new RegExp(alternatives.join('|'), 'g'), (match, ...args) => {
      const groups = args.at(-1) as Record<string, string | undefined>
      if (groups.time !== undefined) return emit({ kind: 'time', value: match })
      return this.id(match, emit)
    })
  }

  id(value: string, emit: (token: Token) => string): string {
    this.knownIds.add(value)
    return emit({ kind: 'id', value })
  }
}

export interface Comparable {
  readonly statusLine: string
  readonly headers: Record<string, string>
  readonly body: unknown
}

/**
 * The values of one session, documented and real. A documented value gets a placeholder
 * (`<id 1>`, `<time 2>`, `<etag 1>`, `<track 1>`) the first time it appears; the real
 * value at the same position in the real answer is bound to it. Later, the same
 * documented value must meet the same real value, and a real value may stand for only
 * one documented value, else the real side shows `<id ?value>` and the comparison fails.
 */
export class SessionValues {
  private readonly doc = new Side()
  private readonly real = new Side()
  private readonly placeholders = new Map<string, string>()
  private readonly counters: Record<Kind, number> = { id: 0, time: 0, etag: 0, track: 0 }
  private readonly docToReal = new Map<string, string>()
  private readonly realToDoc = new Map<string, string>()

  /** The real value bound to a documented id or ETag, if any. */
  realOf(kind: Kind, docValue: string): string | undefined {
    return this.docToReal.get(`${kind}\0${docValue}`)
  }

  /** Documented ids seen so far with their real values, longest first. */
  idPairs(): [string, string][] {
    const pairs: [string, string][] = []
    for (const id of this.doc.knownIds) {
      const real = this.realOf('id', id)
      if (real !== undefined) pairs.push([id, real])
    }
    return pairs.sort((a, b) => b[0].length - a[0].length)
  }

  /** Rewrites documented ids and ETags in a request to the real ones. */
  translate(request: CurlRequest): CurlRequest {
    const ids = (text: string) =>
      this.idPairs().reduce((result, [doc, real]) => result.split(doc).join(real), text)
    return {
      ...request,
      path: ids(request.path),
      body: request.body === undefined ? undefined : ids(request.body),
      headers: request.headers.map(([name, value]) => [
        name,
        /^if-(none-)?match$/i.test(name)
          ? value.replace(/(W\/)?"[^"]*"/g, (tag) => this.realOf('etag', tag) ?? tag)
          : ids(value),
      ]),
    }
  }

  /**
   * Both answers in comparable form. Only the documented headers are compared (in the
   * documented order); `literal` holds values that the request itself chose (an X-Track
   * sent by the client), which compare as they are.
   */
  normalise(
    documented: DocumentedAnswer,
    real: { statusLine: string; headers: Record<string, string | undefined>; text: string },
    literal: string,
  ): { documented: Comparable; real: Comparable } {
    const docTokens: Token[] = []
    const docEmit = (token: Token) => {
      if (token.kind === 'track' && literal.includes(token.value)) return token.value
      docTokens.push(token)
      const key = `${token.kind}\0${token.value}`
      let placeholder = this.placeholders.get(key)
      if (placeholder === undefined) {
        this.counters[token.kind]++
        placeholder = `<${token.kind} ${this.counters[token.kind]}>`
        this.placeholders.set(key, placeholder)
      }
      return placeholder
    }
    let position = 0
    const realEmit = (token: Token) => {
      if (token.kind === 'track' && literal.includes(token.value)) return token.value
      const docToken = docTokens[position++]
      if (docToken === undefined || docToken.kind !== token.kind) {
        return `<${token.kind} ?${token.value}>`
      }
      const key = `${token.kind}\0${docToken.value}`
      const bound = this.docToReal.get(key)
      if (bound === undefined) {
        if (this.realToDoc.has(`${token.kind}\0${token.value}`)) {
          return `<${token.kind} ?${token.value}>`
        }
        this.docToReal.set(key, token.value)
        this.realToDoc.set(`${token.kind}\0${token.value}`, docToken.value)
      } else if (bound !== token.value) {
        return `<${token.kind} ?${token.value}>`
      }
      return this.placeholders.get(key) as string
    }

    const documentedSide = this.comparable(
      this.doc,
      documented.statusLine,
      documented.headers.map(([name, value]) => [name.toLowerCase(), value]),
      documented.body,
      docEmit,
    )
    const realSide = this.comparable(
      this.real,
      real.statusLine,
      documented.headers.map(([name]) => [name.toLowerCase(), real.headers[name.toLowerCase()]]),
      real.text,
      realEmit,
    )
    return { documented: documentedSide, real: realSide }
  }

  private comparable(
    side: Side,
    statusLine: string,
    headers: readonly (readonly [string, string | undefined])[],
    text: string,
    emit: (token: Token) => string,
  ): Comparable {
    const normalisedHeaders: Record<string, string> = {}
    for (const [name, value] of headers) {
      normalisedHeaders[name] =
        value === undefined ? '(absent)' : normaliseHeader(side, name, value.trim(), emit)
    }
    return { statusLine, headers: normalisedHeaders, body: normaliseBody(side, text, emit) }
  }
}

function normaliseHeader(
  side: Side,
  name: string,
  value: string,
  emit: (token: Token) => string,
): string {
  if (name === 'etag') return emit({ kind: 'etag', value })
  if (name === 'x-track') return emit({ kind: 'track', value })
  if (name === 'location' || name === 'content-location') {
    const slash = value.lastIndexOf('/')
    return `${side.scan(value.slice(0, slash + 1), emit)}${side.id(value.slice(slash + 1), emit)}`
  }
  return side.scan(value, emit)
}

function normaliseBody(side: Side, text: string, emit: (token: Token) => string): unknown {
  if (text.trim() === '') return ''
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return side.scan(text.trim(), emit)
  }
  const walk = (value: unknown, key: string | undefined): unknown => {
    if (typeof value === 'string') {
      return key !== undefined && ID_FIELDS.has(key) ? side.id(value, emit) : side.scan(value, emit)
    }
    if (Array.isArray(value)) return value.map((item) => walk(item, undefined))
    if (value !== null && typeof value === 'object') {
      // Keys in sorted order, so both sides meet their values in the same order.
      const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      return Object.fromEntries(entries.map(([k, v]) => [k, walk(v, k)]))
    }
    return value
  }
  return walk(json, undefined)
}

/**
 * The header names docs/usage.md says the examples leave out: the backquoted names in
 * the paragraph after the marker comment `<!-- omitted-headers -->`.
 */
export function omittedHeaders(markdown: string): string[] {
  const lines = markdown.split('\n')
  const marker = lines.findIndex((line) => line.includes('<!-- omitted-headers -->'))
  if (marker < 0) throw new Error('docs/usage.md has no <!-- omitted-headers --> paragraph')
  const paragraph: string[] = []
  for (const line of lines.slice(marker + 1)) {
    if (line.trim() === '') break
    paragraph.push(line)
  }
  return [...paragraph.join(' ').matchAll(/`([A-Za-z][A-Za-z0-9-]*)`/g)].map((m) =>
    (m[1] as string).toLowerCase(),
  )
}
