import type { FastifyInstance } from 'fastify'

/**
 * What a token's `scope` claim may grant: one resource's collection and one kind of
 * access. Each resource declares its own, with what they grant (its index.ts).
 */
export type Scope = `${string}:${'read' | 'write'}`

/**
 * The kinds of expensive work an instance admits in bounded numbers (bulkheads, see
 * docs/operations/capacity.md#bounded-work): a route doing one may be answered 503 e.ex.fw.9005.
 */
export type Cost = 'search' | 'todo-list' | 'hashing'

declare module 'fastify' {
  /**
   * The policy of a route, declared with it in `config` and applied by the pipeline's
   * stages (pipeline.ts) and the OpenAPI document (openapi/operation.ts).
   */
  interface FastifyContextConfig {
    /**
     * The bearer token scope the route needs when authentication is on (authentication.ts);
     * `public` for what stays open (OPTIONS, which a browser's preflight sends without a
     * token, and the OpenAPI document). Every API route must say which.
     */
    scope?: Scope | 'public'
    /** The route honours an Idempotency-Key (idempotency/idempotency-keys.ts). */
    idempotent?: boolean
    /** The expensive work the route does, which a busy instance refuses with 503. */
    cost?: Cost
    /**
     * The route's answers carry personal data (the member routes), so no cache may keep
     * them, not a shared proxy's, not the browser's disk.
     */
    noStore?: boolean
  }
}

/**
 * Refuses to start with an API route that does not declare its scope, or declares one no
 * resource grants: a route left out would be open to anyone once authentication is on.
 */
export function requireDeclaredScopes(
  context: FastifyInstance,
  granted: ReadonlySet<string>,
): void {
  context.addHook('onRoute', (route) => {
    const scope = route.config?.scope
    if (scope === undefined) {
      throw new Error(`${String(route.method)} ${route.url} declares no scope in its config`)
    }
    if (scope !== 'public' && !granted.has(scope)) {
      throw new Error(
        `${String(route.method)} ${route.url} declares the scope ${scope}, which no resource grants`,
      )
    }
  })
}
