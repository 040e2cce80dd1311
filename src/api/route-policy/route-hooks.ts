import type { RouteOptions } from 'fastify'

type RouteHookName = 'preParsing' | 'preValidation' | 'preHandler' | 'onSend'
type RouteHook<Name extends RouteHookName> = Extract<
  NonNullable<RouteOptions[Name]>,
  unknown[]
>[number]

/**
 * Gives one route a stage of its context (from an `onRoute` hook), ahead of the route's
 * own hooks of that kind and after the context-wide ones, where a context-wide hook would
 * run. A stage that only some routes need (those reading a body, those honouring an
 * Idempotency-Key) then costs the others nothing: Fastify runs every hook of a context
 * through its hook runner on every request of the context.
 */
export function addRouteHook<Name extends RouteHookName>(
  route: RouteOptions,
  name: Name,
  hook: RouteHook<Name>,
): void {
  const own = route[name] as RouteHook<Name> | RouteHook<Name>[] | undefined
  const hooks = own === undefined ? [] : Array.isArray(own) ? own : [own]
  ;(route as Record<Name, RouteHook<Name>[]>)[name] = [hook, ...hooks]
}

/** Does the route read a request body (its schema declares one)? */
export function readsBody(route: Pick<RouteOptions, 'schema'>): boolean {
  return route.schema?.body !== undefined
}
