import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify'
import type { TObject } from 'typebox'
import type { ErrorAnswer } from '../errors/catalogue.js'
import { BODY_FORMAT_ERRORS, errorResponses } from '../errors/documented-answers.js'
import { allowedMethods } from '../reply/bodiless-replies.js'
import { noBody } from '../schemas/responses.js'

export interface OptionsRoutes {
  /** The collection path, e.g. `/todos`; its items are `${collection}/:${idParam}`. */
  readonly collection: string
  readonly idParam: string
  readonly params: TObject
  readonly tags: readonly string[]
  /** The operationIds of OPTIONS on the collection and on an item. */
  readonly operationIds: readonly [string, string]
  /** The route config of both (e.g. `noStore`); OPTIONS needs no scope (a preflight has no token). */
  readonly config?: FastifyContextConfig
  /** The code of the item's 404. */
  readonly notFound: ErrorAnswer
  /** What the item is called in the summary, e.g. `Todo`. */
  readonly noun: string
  /** Resolves while the item exists; throws its resource's not-found error otherwise. */
  readonly exists: (id: string) => Promise<unknown>
}

/** OPTIONS on a collection and on its items: 200 with Allow; on an item only while it exists. */
export function registerOptionsRoutes(app: FastifyInstance, routes: OptionsRoutes): void {
  const allow = noBody('Allow lists the methods.')
  const preflight = noBody(
    'A CORS preflight (Origin and Access-Control-Request-Method) from an origin that ' +
      'CORS_ORIGINS allows, answered with the Access-Control-Allow-* headers.',
  )
  const [collectionId, itemId] = routes.operationIds
  app.options(
    routes.collection,
    {
      config: { ...routes.config, scope: 'public' },
      schema: {
        operationId: collectionId,
        tags: [...routes.tags],
        summary: 'The methods of the collection, in Allow.',
        description: 'Answers 200 with Allow listing the methods the collection serves.',
        response: { 200: allow, 204: preflight, ...errorResponses(BODY_FORMAT_ERRORS) },
      },
    },
    async (request, reply) => allowedMethods(request, reply),
  )
  app.options(
    `${routes.collection}/:${routes.idParam}`,
    {
      config: { ...routes.config, scope: 'public' },
      schema: {
        operationId: itemId,
        tags: [...routes.tags],
        summary: `The methods of an existing ${routes.noun}, in Allow.`,
        description: `Answers 200 with Allow listing the methods while the ${routes.noun} exists, else its 404.`,
        params: routes.params,
        response: {
          200: allow,
          204: preflight,
          ...errorResponses(routes.notFound, BODY_FORMAT_ERRORS),
        },
      },
    },
    async (request: FastifyRequest, reply) => {
      await routes.exists((request.params as Record<string, string>)[routes.idParam] as string)
      return allowedMethods(request, reply)
    },
  )
}
