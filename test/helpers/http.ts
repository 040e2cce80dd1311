import { type Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http'

export interface HttpResponse {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly text: string
  /** The body parsed as JSON (undefined when empty). */
  readonly body: unknown
}

export interface HttpOptions {
  readonly headers?: Record<string, string | number>
  /** A string or Buffer is sent as is; anything else as JSON with Content-Type application/json. */
  readonly body?: unknown
  /**
   * false: the response is not held to the OpenAPI document (see contract.ts). Only for a
   * request that deliberately breaks HTTP itself; the server answers any other within it.
   */
  readonly contract?: false
  /** The connection pool to send on (Node's global agent when absent). */
  readonly agent?: Agent
  /** Fails the request when no answer has come by then. */
  readonly timeoutMs?: number
  /** The address to connect from (any of 127.0.0.0/8 on Linux): another client. */
  readonly localAddress?: string
}

/**
 * A raw HTTP/1.1 client over node:http, so tests can send any method, header and body
 * (fetch forbids some) and see headers exactly as the server wrote them.
 */
export function http(
  baseUrl: string,
  method: string,
  path: string,
  options: HttpOptions = {},
): Promise<HttpResponse> {
  const headers: Record<string, string | number> = { ...options.headers }
  let payload: string | Buffer | undefined
  if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) {
    payload = options.body
  } else if (options.body !== undefined) {
    payload = JSON.stringify(options.body)
    headers['content-type'] ??= 'application/json'
  }
  // Node's client frames no body of GET/HEAD/DELETE/OPTIONS by itself; say its length.
  if (payload !== undefined) headers['content-length'] ??= Buffer.byteLength(payload)
  return new Promise((resolve, reject) => {
    const { agent, localAddress } = options
    const req = httpRequest(
      new URL(path, baseUrl),
      { method, headers, ...(agent && { agent }), ...(localAddress && { localAddress }) },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          let body: unknown
          try {
            body = text === '' ? undefined : JSON.parse(text)
          } catch {
            body = undefined
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body })
        })
        res.on('error', reject)
      },
    )
    if (options.timeoutMs !== undefined) {
      const ms = options.timeoutMs
      req.setTimeout(ms, () => req.destroy(new Error(`no answer within ${ms} ms`)))
    }
    req.on('error', reject)
    req.end(payload)
  })
}

/** The Allow of a collection and of an item, Todo and Member alike. */
export const COLLECTION_ALLOW = 'GET, HEAD, POST, OPTIONS'
export const ITEM_ALLOW = 'GET, HEAD, PUT, DELETE, OPTIONS'

/** How many responses had each status, e.g. { 201: 1, 409: 19 }. */
export function countStatuses(responses: readonly HttpResponse[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const { status } of responses) counts[status] = (counts[status] ?? 0) + 1
  return counts
}
