import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { PageFormat } from '../../config.js'
import type { MemberSearch, SortableProperty } from '../../domain/member/model.js'
import type { MemberService } from '../../domain/member/service.js'
import { toPage } from '../common/page.js'
import { parseSort } from '../common/sort.js'
import type { Violation } from '../errors/problems.js'
import { etagOf, ifMatchCondition, ifNoneMatchHits } from '../http/etag.js'
import { locationOf } from '../http/location.js'
import { allowedMethods, noContent, notModified } from '../http/replies.js'
import { fieldOrder, withBodyViolations } from '../validation/violations.js'
import { toMemberResource } from './mapper.js'
import {
  MemberCreateBody,
  MemberPath,
  MemberResource,
  MemberSearchQuery,
  MemberUpdateBody,
  memberSearchResponse,
} from './schemas.js'

export interface MemberRoutesOptions {
  readonly service: MemberService
  readonly pageFormat: PageFormat
}

const UPDATE_FIELD_ORDER = fieldOrder(MemberUpdateBody)

/** PathMatch: a non-empty body memberId must be the path's (empty ones already break NotEmpty). */
function pathMismatch(bodyMemberId: unknown, pathMemberId: string): Violation[] {
  return typeof bodyMemberId === 'string' && bodyMemberId !== '' && bodyMemberId !== pathMemberId
    ? [{ constraint: 'PathMatch', target: 'memberId' }]
    : []
}

export const memberRoutes: FastifyPluginAsyncTypebox<MemberRoutesOptions> = async (
  app,
  { service, pageFormat },
) => {
  app.get(
    '/members',
    {
      schema: {
        querystring: MemberSearchQuery,
        response: { 200: memberSearchResponse(pageFormat) },
      },
    },
    async (request) => {
      const { name, page, size, sort, unpaged } = request.query
      const orders = parseSort<SortableProperty>(sort)
      const search: MemberSearch = { namePrefix: name, sort: orders }
      if (unpaged) return (await service.searchAll(search)).map(toMemberResource)
      const { members, total } = await service.search(search, { page, size })
      const content = members.map(toMemberResource)
      return toPage({ content, page, size, total, sort: orders }, pageFormat)
    },
  )

  app.post(
    '/members',
    { schema: { body: MemberCreateBody, response: { 201: MemberResource } } },
    async (request, reply) => {
      const { credential, ...profile } = request.body
      const member = await service.create({
        ...profile,
        credential: { signId: credential.signId, password: credential.password },
      })
      reply
        .code(201)
        .header('location', locationOf(request, member.memberId))
        .header('etag', etagOf(member.version))
      return toMemberResource(member)
    },
  )

  app.get(
    '/members/:memberId',
    { schema: { params: MemberPath, response: { 200: MemberResource } } },
    async (request, reply) => {
      const member = await service.get(request.params.memberId)
      const etag = etagOf(member.version)
      reply.header('etag', etag)
      if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return notModified(reply)
      return toMemberResource(member)
    },
  )

  app.put(
    '/members/:memberId',
    {
      schema: { params: MemberPath, body: MemberUpdateBody, response: { 200: MemberResource } },
      // Schema failures are merged with PathMatch before answering (preHandler).
      attachValidation: true,
      preHandler: async (request) => {
        const mismatch = pathMismatch(request.body?.memberId, request.params.memberId)
        const failure = withBodyViolations(request.validationError, mismatch, UPDATE_FIELD_ORDER)
        if (failure) throw failure
      },
    },
    async (request, reply) => {
      const condition = ifMatchCondition(request.headers['if-match'])
      const member = await service.update(request.params.memberId, request.body, condition)
      reply.header('etag', etagOf(member.version))
      return toMemberResource(member)
    },
  )

  app.delete('/members/:memberId', { schema: { params: MemberPath } }, async (request, reply) => {
    await service.delete(request.params.memberId, ifMatchCondition(request.headers['if-match']))
    return noContent(reply)
  })

  app.options('/members', async (request, reply) => allowedMethods(request, reply))

  app.options('/members/:memberId', { schema: { params: MemberPath } }, async (request, reply) => {
    await service.get(request.params.memberId)
    return allowedMethods(request, reply)
  })
}
