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
