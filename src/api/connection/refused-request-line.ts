/** A method is a token (RFC 9110 §9.1), case-sensitive: `get` is a method, not GET. */
const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const REQUEST_LINE = /^(\S+) (\/\S*) HTTP\/1\.[01]\r?$/

/** What Node's 'clientError' event documents on its error. */
interface ParserError {
  readonly code?: string
  readonly rawPacket?: unknown
  readonly bytesParsed?: unknown
}

export interface RequestLine {
  readonly method: string
  readonly target: string
}

/**
 * Node's parser knows a fixed list of methods, in upper case, and refuses any other
 * (`FOO`, `get`) before the request reaches the service. Such a request line is still a
 * valid one, to be answered like any method the path does not serve (404 or 405,
 * decisions §2): this returns its method and target, or undefined when the parser
 * refused something else, or a line that is no HTTP/1.x request line.
 */
export function refusedRequestLine(error: ParserError): RequestLine | undefined {
  const { code, rawPacket, bytesParsed } = error
  if (code !== 'HPE_INVALID_METHOD' || !Buffer.isBuffer(rawPacket)) return undefined
  const at = typeof bytesParsed === 'number' ? bytesParsed : 0
  // The refused request starts on the line the parser stopped in.
  const start = at > 0 ? rawPacket.lastIndexOf(0x0a, at - 1) + 1 : 0
  const end = rawPacket.indexOf(0x0a, start)
  if (end < 0) return undefined
  const match = REQUEST_LINE.exec(rawPacket.toString('latin1', start, end))
  if (!match?.[1] || !match[2] || !METHOD.test(match[1])) return undefined
  return { method: match[1], target: match[2] }
}

/** The part of a request Node's parser refused, and the name of it an ApiError's target gives. */
export interface RefusedPart {
  readonly part: 'request line' | 'header' | 'body'
  readonly target?: string
}

/** llhttp's error codes, by the part of a request each refuses. */
const PARTS_BY_CODE: Readonly<Record<string, RefusedPart>> = {
  HPE_INVALID_METHOD: { part: 'request line', target: 'method' },
  HPE_INVALID_URL: { part: 'request line', target: 'request-target' },
  // "Expected HTTP/": the word where the version belongs (`HTTX/1.1`, or a target's space).
  HPE_INVALID_CONSTANT: { part: 'request line', target: 'HTTP-version' },
  HPE_INVALID_VERSION: { part: 'request line', target: 'HTTP-version' },
  HPE_UNEXPECTED_SPACE: { part: 'request line', target: 'request-line' },
  HPE_INVALID_HEADER_TOKEN: { part: 'header' },
  HPE_INVALID_CONTENT_LENGTH: { part: 'header', target: 'Content-Length' },
  HPE_UNEXPECTED_CONTENT_LENGTH: { part: 'header', target: 'Content-Length' },
  HPE_INVALID_TRANSFER_ENCODING: { part: 'header', target: 'Transfer-Encoding' },
  HPE_INVALID_CHUNK_SIZE: { part: 'body' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { part: 'body' },
  HPE_INVALID_EOF_STATE: { part: 'body' },
}

/**
 * Codes of a line end that is not CRLF, which llhttp gives in the headers and in a chunked
 * body alike: the part is told by where the parser stopped.
 */
const LINE_END_CODES = new Set(['HPE_STRICT', 'HPE_CR_EXPECTED', 'HPE_LF_EXPECTED'])
const HEAD_END = Buffer.from('\r\n\r\n')
const REQUEST_LINE_START = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ /

/**
 * Whether the parser stopped in a body: an empty line ended a head before that point in
 * the bytes it was reading, and what follows it is no next request's line.
 */
function stoppedInBody({ rawPacket, bytesParsed }: ParserError): boolean {
  if (!Buffer.isBuffer(rawPacket) || typeof bytesParsed !== 'number') return false
  const headEnd = rawPacket.lastIndexOf(HEAD_END, bytesParsed - HEAD_END.length)
  if (headEnd === -1) return false
  const after = rawPacket.toString('latin1', headEnd + HEAD_END.length, bytesParsed + 1)
  return !REQUEST_LINE_START.test(after)
}

const TOKEN_CHAR = /[!#$%&'*+.^_`|~0-9A-Za-z-]/

/**
 * The method word the parser stopped in: back from where it stopped over token
 * characters (a body before it on the same line is not part of it), then on to the
 * next space or line end.
 */
function methodWordAt({ rawPacket, bytesParsed }: ParserError): string {
  if (!Buffer.isBuffer(rawPacket)) return ''
  const at = Math.min(typeof bytesParsed === 'number' ? bytesParsed : 0, rawPacket.length)
  let start = at
  while (start > 0 && TOKEN_CHAR.test(String.fromCharCode(rawPacket[start - 1] ?? 0))) start -= 1
  return /^[^ \r\n]*/.exec(rawPacket.toString('latin1', start, start + 64))?.[0] ?? ''
}

/** A header's name: a token before the colon. */
const HEADER_NAME = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):/

/** The name of the header on the line where the parser stopped, when it is one. */
function headerNameAt({ rawPacket, bytesParsed }: ParserError): string | undefined {
  if (!Buffer.isBuffer(rawPacket) || typeof bytesParsed !== 'number') return undefined
  const start = bytesParsed > 0 ? rawPacket.lastIndexOf(0x0a, bytesParsed - 1) + 1 : 0
  return HEADER_NAME.exec(rawPacket.toString('latin1', start, bytesParsed + 1))?.[1]
}

/**
 * Which part of the request the parser refused, from its error code (and, for a line end
 * that is not CRLF, from where it stopped): a request line (named by the word at fault),
 * a header (named when its name could be read: a bad value, a Content-Length, not a name
 * with a space in it) or a chunked body's framing. Undefined for a code no table knows.
 */
export function refusedPart(error: ParserError): RefusedPart | undefined {
  if (typeof error.code === 'string' && LINE_END_CODES.has(error.code) && stoppedInBody(error)) {
    return { part: 'body' }
  }
  // A method token with no request line's target after it (`FOO *`, `GARBAGE`).
  if (error.code === 'HPE_INVALID_METHOD' && METHOD.test(methodWordAt(error))) {
    return { part: 'request line', target: 'request-target' }
  }
  const known =
    typeof error.code !== 'string'
      ? undefined
      : LINE_END_CODES.has(error.code)
        ? { part: 'header' as const }
        : PARTS_BY_CODE[error.code]
  if (known?.part !== 'header' || known.target) return known
  return { part: 'header', target: headerNameAt(error) ?? 'header' }
}
