import type { FastifyRequest } from 'fastify'
import { ApiProblem, PROBLEMS } from '../errors/problems.js'

/** The one expectation HTTP defines; Node has already answered it with 100 Continue. */
const CONTINUE = /^100-continue$/i

/**
 * What the request head must carry before anything else is looked at: HTTP/1.1 requires
 * a Host (RFC 9112 §3.2), and an Expect this server cannot meet is 417 (RFC 9110 §10.1.1).
 * Node would refuse both itself, with an empty body; here they are ApiErrors.
 */
export function checkRequestHead(request: FastifyRequest): ApiProblem | undefined {
  const { raw } = request
  if (raw.httpVersionMajor === 1 && raw.httpVersionMinor >= 1 && !raw.headers.host) {
    return new ApiProblem(PROBLEMS.parameterTypeMismatch, { target: 'Host' })
  }
  const expect = raw.headers.expect
  if (expect !== undefined && !CONTINUE.test(expect.trim())) {
    return new ApiProblem(PROBLEMS.expectationFailed, { target: 'Expect' })
  }
  return undefined
}
