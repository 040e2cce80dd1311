import type { IncomingMessage } from 'node:http'

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })
const lenientUtf8 = new TextDecoder('utf-8')
/** A run of percent escapes, or a `%` that starts none. */
const ESCAPES = /(?:%[0-9A-Fa-f]{2})+|%/g

function reencode(run: string): string {
  if (run === '%') return '%25'
  const bytes = Buffer.from(run.replaceAll('%', ''), 'hex')
  try {
    strictUtf8.decode(bytes)
    return run
  } catch {
    return encodeURIComponent(lenientUtf8.decode(bytes))
  }
}

/**
 * The request target with a path the router can always decode. A path segment whose
 * escapes are no UTF-8 text (`%FF`, an encoded lone surrogate `%ED%A0%80`, a stray `%`)
 * would make the router give up on the whole path; instead each such byte becomes
 * U+FFFD (a stray `%` stays a literal `%`), so an item path still reaches its route and
 * answers the resource's own 404: an id that is no text names no resource (decisions §2).
 */
export function decodableTarget(request: IncomingMessage): string {
  const url = request.url ?? '/'
  const queryStart = url.indexOf('?')
  const path = queryStart === -1 ? url : url.slice(0, queryStart)
  if (!path.includes('%')) return url
  try {
    decodeURIComponent(path)
    return url
  } catch {
    const query = queryStart === -1 ? '' : url.slice(queryStart)
    return path.replace(ESCAPES, reencode) + query
  }
}
