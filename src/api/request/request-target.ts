import type { IncomingMessage } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiProblem } from '../errors/api-problem.js'
import { PROBLEMS } from '../errors/catalogue.js'

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

/** absolute-form starts with a scheme and a colon (RFC 9112 §3.2.2, RFC 3986 §3.1). */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:/
const SLASH = 0x2f

/**
 * A request target of none of HTTP's forms (RFC 9112 §3.2) is a refused request line:
 * origin-form starts with `/`, absolute-form with a scheme; the asterisk form (`*`,
 * exactly) is OPTIONS's alone, asking about the server as a whole. So no route, the web
 * app's pages among them, answers `GET *`, `GET *?a` or `DELETE *`. CONNECT's
 * authority-form is answered by its route (405 or 404), as any method is.
 */
export function requestTargetProblem(request: FastifyRequest): ApiProblem | undefined {
  const target = request.raw.url ?? ''
  if (target.charCodeAt(0) === SLASH || request.method === 'CONNECT') return undefined
  if (target === '*' ? request.method === 'OPTIONS' : ABSOLUTE_FORM.test(target)) return undefined
  return new ApiProblem(PROBLEMS.parameterTypeMismatch, { target: 'request-target' })
}

/** `OPTIONS *`, answered at once: 200 with the Allow of the whole server. */
export function answersAsteriskForm(request: FastifyRequest, reply: FastifyReply): boolean {
  if (request.raw.url !== '*') return false
  reply.code(200).header('allow', request.server.serverAllowHeader()).send()
  return true
}
