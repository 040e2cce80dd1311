import type { FastifyInstance, FastifyRequest } from 'fastify'
import FindMyWay from 'find-my-way'
import { ApiProblem } from '../errors/api-problem.js'
import { PROBLEMS } from '../errors/catalogue.js'

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

declare module 'fastify' {
  interface FastifyInstance {
    /** The Allow header value for a route template such as `/api/v1/todos/:todoId`. */
    allowHeader(routeUrl: string): string
    /** Every route template the server serves, with its methods (for diagnostics and tests). */
    servedRoutes(): ReadonlyMap<string, ReadonlySet<string>>
    /**
     * The answer to a method and path no route serves: 405 with Allow on a known path,
     * 404 on any other. Also for request lines Node's parser refuses (a method it does
     * not know, such as `FOO` or `get`).
     */
    unmatchedRequestProblem(method: string, url: string): ApiProblem
    /** Every method some route serves, as an Allow value: the answer to `OPTIONS *`. */
    serverAllowHeader(): string
  }
}

/** `/todos/` matches `/todos/:todoId` with an empty id; such a path names no resource. */
function hasEmptyParam(params: unknown): boolean {
  for (const key in params as Record<string, unknown>) {
    if ((params as Record<string, unknown>)[key] === '') return true
  }
  return false
}

/** A matched route whose id is empty: 404, as for any path that names no resource. */
export function emptyIdProblem(request: FastifyRequest): ApiProblem | undefined {
  return hasEmptyParam(request.params) ? new ApiProblem(PROBLEMS.resourceNotFound) : undefined
}

/**
 * Remembers which methods each path template serves, so that any path the router
 * does not match can be told apart: a known path with another method is 405 with
 * Allow, anything else is 404. Must be installed before routes are registered; the
 * answer itself waits for the preParsing stage, after every onRequest hook.
 */
export function answerUnmatchedRequests(app: FastifyInstance, maxParamLength: number): void {
  const paths = FindMyWay({ maxParamLength })
  const methodsByUrl = new Map<string, Set<string>>()

  app.addHook('onRoute', (route) => {
    // A catch-all (CORS's preflight route) names no path; it must not turn 404s into 405s.
    if (route.url === '*' || route.url === '/*') return
    let methods = methodsByUrl.get(route.url)
    if (!methods) {
      methods = new Set()
      methodsByUrl.set(route.url, methods)
      paths.on('GET', route.url, () => undefined, { url: route.url })
    }
    for (const method of [route.method].flat()) methods.add(method)
  })

  const allowHeader = (url: string) => {
    const methods = methodsByUrl.get(url) ?? new Set<string>()
    return METHOD_ORDER.filter((method) => methods.has(method)).join(', ')
  }
  app.decorate('allowHeader', allowHeader)
  app.decorate('serverAllowHeader', () => {
    const served = new Set([...methodsByUrl.values()].flatMap((methods) => [...methods]))
    return METHOD_ORDER.filter((method) => served.has(method)).join(', ')
  })
  app.decorate('servedRoutes', () => methodsByUrl)

  const unmatchedRequestProblem = (method: string, url: string): ApiProblem => {
    const path = url.split('?', 1)[0] ?? '/'
    const match = paths.find('GET', path) as { params: unknown; store?: { url: string } } | null
    // A route that serves the method found nothing (a file the docs page does not have).
    const served = match?.store && methodsByUrl.get(match.store.url)?.has(method)
    if (!match?.store || served || hasEmptyParam(match.params)) {
      return new ApiProblem(PROBLEMS.resourceNotFound)
    }
    return new ApiProblem(PROBLEMS.methodNotAllowed, {
      headers: { allow: allowHeader(match.store.url) },
    })
  }
  app.decorate('unmatchedRequestProblem', unmatchedRequestProblem)

  // Answered once every onRequest hook has run (CORS headers, draining's Connection:
  // close), before Fastify looks at the body or at QUERY's required Content-Type: no
  // part of the body counts before the route is known (decisions §2).
  app.addHook('preParsing', (request, _reply, payload, done) => {
    done(request.is404 ? unmatchedRequestProblem(request.method, request.url) : null, payload)
  })

  // A route that found nothing to serve (a file the docs page does not have) ends here.
  app.setNotFoundHandler((request) => {
    throw unmatchedRequestProblem(request.method, request.url)
  })
}
