import type { FastifyRequest } from 'fastify'
import { ApiProblem } from '../errors/api-problem.js'
import { PROBLEMS } from '../errors/catalogue.js'
import { isValidHost } from './host.js'

/** The one expectation HTTP defines; Node has already answered it with 100 Continue. */
const CONTINUE = /^100-continue$/i

/** How many Host lines the head has (Node keeps only the first in `headers`). */
function hostLines(rawHeaders: readonly string[]): number {
  let count = 0
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index]?.length === 4 && rawHeaders[index]?.toLowerCase() === 'host') count += 1
  }
  return count
}

/**
 * What the request head must carry before anything else is looked at: HTTP/1.1 requires
 * exactly one Host (RFC 9112 §3.2), a valid one in any version (host.ts), and an Expect
 * this server cannot meet is 417 (RFC 9110 §10.1.1). Node would refuse a missing Host and the Expect itself, with an empty
 * body, and take the first of two Hosts; here each is an ApiError.
 */
export function checkRequestHead(request: FastifyRequest): ApiProblem | undefined {
  const { raw } = request
  const hosts = hostLines(raw.rawHeaders)
  const needsHost = raw.httpVersionMajor === 1 && raw.httpVersionMinor >= 1
  const host = raw.headers.host
  if (hosts > 1 || (needsHost && !host) || (host !== undefined && !isValidHost(host))) {
    return new ApiProblem(PROBLEMS.parameterTypeMismatch, { target: 'Host' })
  }
  const expect = raw.headers.expect
  if (expect !== undefined && !CONTINUE.test(expect.trim())) {
    return new ApiProblem(PROBLEMS.expectationFailed, { target: 'Expect' })
  }
  return undefined
}

/**
 * Transfer-Encoding in an HTTP/1.0 request is faulty framing (RFC 9112 §6.1): the body
 * is read as chunked, but the connection closes after the answer, so that nothing a
 * 1.0 intermediary may have framed otherwise is read as a next request.
 */
export function mustCloseAfterAnswer(request: FastifyRequest): boolean {
  const { raw } = request
  return (
    raw.httpVersionMajor === 1 &&
    raw.httpVersionMinor === 0 &&
    raw.headers['transfer-encoding'] !== undefined
  )
}
