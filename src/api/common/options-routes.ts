import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TObject } from 'typebox'
import { allowedMethods } from '../http/replies.js'
import { errorResponses, noBody } from './responses.js'

export interface OptionsRoutes {
  /** The collection path, e.g. `/todos`; its items are `${collection}/:${idParam}`. */
  readonly collection: string
  readonly idParam: string
  readonly params: TObject
  readonly tags: readonly string[]
  /** What the item is called in the summary, e.g. `Todo`. */
  readonly noun: string
  /** Resolves while the item exists; throws its resource's not-found error otherwise. */
  readonly exists: (id: string) => Promise<unknown>
}

/** OPTIONS on a collection and on its items: 200 with Allow; on an item only while it exists. */
export function registerOptionsRoutes(app: FastifyInstance, routes: OptionsRoutes): void {
  const allow = noBody('Allow lists the methods.')
  app.options(
    routes.collection,
    {
      schema: {
        tags: [...routes.tags],
        summary: 'The methods of the collection, in Allow.',
        response: { 200: allow, ...errorResponses(400, 413, 415) },
      },
    },
    async (request, reply) => allowedMethods(request, reply),
  )
  app.options(
    `${routes.collection}/:${routes.idParam}`,
    {
      schema: {
        tags: [...routes.tags],
        summary: `The methods of an existing ${routes.noun}, in Allow.`,
        params: routes.params,
        response: { 200: allow, ...errorResponses(400, 404, 413, 415) },
      },
    },
    async (request: FastifyRequest, reply) => {
      await routes.exists((request.params as Record<string, string>)[routes.idParam] as string)
      return allowedMethods(request, reply)
    },
  )
}
