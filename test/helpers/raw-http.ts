import { connect, type Socket } from 'node:net'

/**
 * A raw HTTP/1.1 client over node:net, for what an HTTP client would normalize or refuse
 * to send: pipelined requests in one write, malformed request lines and headers, bodies
 * framed by hand. It sends bytes exactly as given and parses whatever comes back.
 */

export type RawBytes = string | Buffer

/** One response as it arrived on the socket. */
export interface RawResponse {
  /** `HTTP/1.1 201 Created` */
  readonly statusLine: string
  readonly httpVersion: string
  readonly status: number
  readonly reason: string
  /** Header names lower-cased; the values of a repeated header joined with `, `. */
  readonly headers: Readonly<Record<string, string>>
  /** Every header line in order, the name as sent. */
  readonly rawHeaders: readonly (readonly [string, string])[]
  /** The body, de-chunked. */
  readonly body: Buffer
  /** The body decoded as UTF-8. */
  readonly text: string
  /** The body parsed as JSON; undefined when empty or not JSON. */
  readonly json: unknown
  /** False when the connection ended before the body its framing announced. */
  readonly complete: boolean
}

export interface RawExchange {
  /** Final responses (status 200 and above), in the order they arrived. */
  readonly responses: readonly RawResponse[]
  /** Interim responses (1xx), such as `100 Continue`. */
  readonly interim: readonly RawResponse[]
  /** Every byte the server wrote. */
  readonly raw: Buffer
  /** Bytes after the last response that parse as none (a partial or garbled answer). */
  readonly trailing: Buffer
  /** The server closed (or reset) the connection before the client stopped reading. */
  readonly closedByServer: boolean
  /** The server reset the connection (ECONNRESET/EPIPE) instead of closing it cleanly. */
  readonly reset: boolean
  /** The client stopped because `timeoutMs` passed. */
  readonly timedOut: boolean
  /** From the call until the client stopped reading. */
  readonly elapsedMs: number
}

export interface RawExchangeOptions {
  /**
   * Stop reading once this many final responses are complete (the client then closes);
   * without it, read until the server closes the connection or `timeoutMs` passes.
   */
  readonly responses?: number
  /** Give up (and close) after this long; the exchange then reports `timedOut`. */
  readonly timeoutMs?: number
  /** With several writes: the pause before each write after the first. */
  readonly writeIntervalMs?: number
  /**
   * The methods of the requests in order, so that an answer to HEAD is read without a
   * body. Without it every final response is framed by its own headers.
   */
  readonly methods?: readonly string[]
  /**
   * After the writes, send one character of `text` every `intervalMs` (cycling) until
   * the connection ends: a client that never finishes its request.
   */
  readonly trickle?: { readonly text: string; readonly intervalMs: number }
  /**
   * A client slower than the server: it takes about `bytes` every `intervalMs` (nothing
   * at all if `bytes` is 0), and from `untilMs` on everything as it comes. Whatever it
   * does not take waits in the kernel's socket buffers (and up to a read in its own).
   */
  readonly throttle?: {
    readonly bytes: number
    readonly intervalMs: number
    readonly untilMs: number
  }
}

/** An exchange in progress. */
export interface RawConnection {
  readonly result: Promise<RawExchange>
  /** True until the connection is closed, by either side. */
  isOpen(): boolean
  /** The bytes the client has taken so far. */
  received(): number
  /** Closes the connection from the client's side (the result then settles). */
  close(): void
}

const DEFAULT_TIMEOUT_MS = 5000

/**
 * Connects to `baseUrl` (an `http://host:port` URL), writes `bytes` (one write, or one
 * write per element of an array) and reads the answers (see RawExchangeOptions).
 * Write errors after the server closed (EPIPE, ECONNRESET) are part of the outcome,
 * never a rejection.
 */
export function openRaw(
  baseUrl: string,
  bytes: RawBytes | readonly RawBytes[],
  options: RawExchangeOptions = {},
): RawConnection {
  const { hostname, port } = new URL(baseUrl)
  const writes = Array.isArray(bytes) ? (bytes as readonly RawBytes[]) : [bytes as RawBytes]
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  let open = true
  let received = 0
  let close = () => {}
  const result = new Promise<RawExchange>((resolve, reject) => {
    const started = Date.now()
    const chunks: Buffer[] = []
    const timers: NodeJS.Timeout[] = []
    let connected = false
    let stoppedByClient = false
    let timedOut = false
    let reset = false
    let settled = false

    const socket = connect(Number(port), hostname)
    socket.setNoDelay(true)

    const stop = () => {
      stoppedByClient = true
      socket.destroy()
    }
    close = stop
    timers.push(
      setTimeout(() => {
        timedOut = true
        stop()
      }, timeoutMs),
    )

    socket.on('connect', () => {
      connected = true
      let delay = 0
      writes.forEach((chunk, index) => {
        if (index === 0) {
          socket.write(chunk)
          return
        }
        delay += options.writeIntervalMs ?? 0
        timers.push(
          setTimeout(() => {
            if (socket.writable) socket.write(chunk)
          }, delay),
        )
      })
      const { trickle } = options
      if (trickle && trickle.text !== '') {
        let sent = 0
        timers.push(
          setTimeout(() => {
            timers.push(
              setInterval(() => {
                if (socket.writable) socket.write(trickle.text.charAt(sent++ % trickle.text.length))
              }, trickle.intervalMs),
            )
          }, delay),
        )
      }
    })
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length
      chunks.push(chunk)
      if (options.responses === undefined) return
      const parsed = parseResponses(Buffer.concat(chunks), { methods: options.methods })
      const done = parsed.responses.filter((response) => response.complete).length
      if (done >= options.responses) stop()
    })
    if (options.throttle) timers.push(...throttleReading(socket, options.throttle))
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected) {
        settled = true
        for (const timer of timers) clearTimeout(timer)
        reject(error)
        return
      }
      // Writing after the server closed, or a reset: the server ended the connection.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') reset = true
    })
    socket.on('close', () => {
      open = false
      for (const timer of timers) clearTimeout(timer)
      if (settled) return
      settled = true
      const raw = Buffer.concat(chunks)
      const parsed = parseResponses(raw, { methods: options.methods, closed: true })
      resolve({
        ...parsed,
        raw,
        closedByServer: !stoppedByClient,
        reset,
        timedOut,
        elapsedMs: Date.now() - started,
      })
    })
  })
  return { result, isOpen: () => open, received: () => received, close: () => close() }
}

/** Paces the reading of `socket` (RawExchangeOptions.throttle); returns its timers. */
function throttleReading(
  socket: Socket,
  { bytes, intervalMs, untilMs }: NonNullable<RawExchangeOptions['throttle']>,
): NodeJS.Timeout[] {
  socket.pause()
  let allowance = 0
  const pace = (chunk: Buffer) => {
    allowance -= chunk.length
    if (allowance <= 0) socket.pause()
  }
  socket.on('data', pace)
  const interval = setInterval(() => {
    allowance = bytes
    if (allowance > 0) socket.resume()
  }, intervalMs)
  const release = setTimeout(() => {
    clearInterval(interval)
    socket.off('data', pace)
    socket.resume()
  }, untilMs)
  return [interval, release]
}

/** `openRaw(...).result`: the whole exchange once it is over. */
export function rawExchange(
  baseUrl: string,
  bytes: RawBytes | readonly RawBytes[],
  options: RawExchangeOptions = {},
): Promise<RawExchange> {
  return openRaw(baseUrl, bytes, options).result
}

export interface RawRequestOptions {
  /** Header lines in order, sent as given (a record, or name/value pairs for repeats). */
  readonly headers?: Readonly<Record<string, string>> | readonly (readonly [string, string])[]
  readonly body?: RawBytes
  /** The Host header; `null` sends none. Defaults to `127.0.0.1`. */
  readonly host?: string | null
  /** The protocol of the request line, `HTTP/1.1` by default. */
  readonly version?: string
}

/**
 * The bytes of one request: request line, Host, the given headers, Content-Length
 * (added for a body unless a Content-Length or Transfer-Encoding header is given) and
 * the body, every line ending in CRLF.
 */
export function rawRequest(
  method: string,
  target: string,
  options: RawRequestOptions = {},
): Buffer {
  const given = Array.isArray(options.headers)
    ? (options.headers as readonly (readonly [string, string])[])
    : Object.entries(options.headers ?? {})
  const lines = [`${method} ${target} ${options.version ?? 'HTTP/1.1'}`]
  const host = options.host === undefined ? '127.0.0.1' : options.host
  if (host !== null) lines.push(`Host: ${host}`)
  for (const [name, value] of given) lines.push(`${name}: ${value}`)
  const framed = given.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name))
  const body =
    options.body === undefined
      ? Buffer.alloc(0)
      : Buffer.isBuffer(options.body)
        ? options.body
        : Buffer.from(options.body, 'utf8')
  if (options.body !== undefined && !framed) lines.push(`Content-Length: ${body.length}`)
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body])
}

// ---- parsing ----------------------------------------------------------------------------

export interface ParseOptions {
  /** The request methods in order (HEAD answers carry no body). */
  readonly methods?: readonly string[]
  /** The connection has ended: a body framed by the close is complete. */
  readonly closed?: boolean
}

export interface ParsedResponses {
  readonly responses: readonly RawResponse[]
  readonly interim: readonly RawResponse[]
  readonly trailing: Buffer
}

const HEAD_END = Buffer.from('\r\n\r\n')
const CRLF = Buffer.from('\r\n')
const STATUS_LINE = /^HTTP\/(\d\.\d) (\d{3})(?: (.*))?$/

/**
 * Splits what a server wrote into responses: bodies framed by Content-Length, chunked
 * transfer coding, or (with neither) the end of the connection; none for 1xx, 204, 304
 * and answers to HEAD. Parsing stops at the first bytes that are no response.
 */
export function parseResponses(data: Buffer, options: ParseOptions = {}): ParsedResponses {
  const responses: RawResponse[] = []
  const interim: RawResponse[] = []
  let offset = 0
  while (offset < data.length) {
    const headEnd = data.indexOf(HEAD_END, offset)
    if (headEnd < 0) break
    const [statusLine = '', ...headerLines] = data
      .subarray(offset, headEnd)
      .toString('latin1')
      .split('\r\n')
    const match = STATUS_LINE.exec(statusLine)
    if (!match) break
    const status = Number(match[2])
    const rawHeaders = headerLines.map((line): [string, string] => {
      const colon = line.indexOf(':')
      return colon < 0 ? [line, ''] : [line.slice(0, colon), line.slice(colon + 1).trim()]
    })
    const headers: Record<string, string> = {}
    for (const [name, value] of rawHeaders) {
      const key = name.toLowerCase()
      headers[key] = key in headers ? `${headers[key]}, ${value}` : value
    }
    const method = options.methods?.[responses.length]?.toUpperCase()
    const bodyless =
      (status >= 100 && status < 200) || status === 204 || status === 304 || method === 'HEAD'
    const bodyStart = headEnd + HEAD_END.length
    const framed = bodyless
      ? { body: Buffer.alloc(0), end: bodyStart, complete: true }
      : readBody(data, bodyStart, headers, options.closed === true)
    if (framed === undefined) break
    const text = framed.body.toString('utf8')
    const response: RawResponse = {
      statusLine,
      httpVersion: match[1] ?? '',
      status,
      reason: match[3] ?? '',
      headers,
      rawHeaders,
      body: framed.body,
      text,
      json: parseJson(text),
      complete: framed.complete,
    }
    if (status < 200) interim.push(response)
    else responses.push(response)
    offset = framed.end
    if (!framed.complete) break
  }
  return { responses, interim, trailing: data.subarray(offset) }
}

interface Framed {
  readonly body: Buffer
  readonly end: number
  readonly complete: boolean
}

/** The body starting at `start`; undefined while more bytes are needed (and may come). */
function readBody(
  data: Buffer,
  start: number,
  headers: Record<string, string>,
  closed: boolean,
): Framed | undefined {
  const incomplete = (body: Buffer): Framed | undefined =>
    closed ? { body, end: data.length, complete: false } : undefined
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) {
    const parts: Buffer[] = []
    let offset = start
    for (;;) {
      const lineEnd = data.indexOf(CRLF, offset)
      if (lineEnd < 0) return incomplete(Buffer.concat(parts))
      const size = Number.parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16)
      if (Number.isNaN(size)) return { body: Buffer.concat(parts), end: offset, complete: false }
      const dataStart = lineEnd + CRLF.length
      if (size === 0) {
        // Trailer fields, then an empty line.
        const trailerEnd = data.indexOf(CRLF, dataStart)
        if (trailerEnd === dataStart) {
          return { body: Buffer.concat(parts), end: dataStart + CRLF.length, complete: true }
        }
        const end = data.indexOf(HEAD_END, dataStart)
        if (end < 0) return incomplete(Buffer.concat(parts))
        return { body: Buffer.concat(parts), end: end + HEAD_END.length, complete: true }
      }
      if (data.length < dataStart + size + CRLF.length) {
        parts.push(data.subarray(dataStart, Math.min(data.length, dataStart + size)))
        return incomplete(Buffer.concat(parts))
      }
      parts.push(data.subarray(dataStart, dataStart + size))
      offset = dataStart + size + CRLF.length
    }
  }
  const length = headers['content-length']
  if (length !== undefined && /^\d+$/.test(length)) {
    const end = start + Number(length)
    if (data.length >= end) return { body: data.subarray(start, end), end, complete: true }
    return incomplete(data.subarray(start))
  }
  // Neither: the body runs to the end of the connection.
  return closed ? { body: data.subarray(start), end: data.length, complete: true } : undefined
}

function parseJson(text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
