import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Violation } from '../../../api/errors/constraints.js'
import {
  BODY_ERRORS,
  BODY_FORMAT_ERRORS,
  errorResponses,
  PRECONDITION_ERRORS,
  QUERY_ERRORS,
} from '../../../api/errors/documented-answers.js'
import { answerCreated } from '../../../api/idempotency/idempotency-keys.js'
import { noContent, notModified } from '../../../api/reply/bodiless-replies.js'
import { etagOf, ifMatchCondition, ifNoneMatchHits } from '../../../api/reply/etag.js'
import { locationOf } from '../../../api/reply/location.js'
import { registerOptionsRoutes } from '../../../api/resource-routes/options-routes.js'
import { toPage } from '../../../api/schemas/page.js'
import { described, noBody } from '../../../api/schemas/responses.js'
import { parseSort } from '../../../api/schemas/sort.js'
import { fieldOrder, withBodyViolations } from '../../../api/validation/violations.js'
import type { PageFormat } from '../../../config/settings.js'
import type { IdempotencyScope } from '../../../domain/idempotency/service.js'
import type { Member, MemberSearch, SortableProperty } from '../domain/model.js'
import type { MemberScope, MemberService } from '../domain/service.js'
import { MEMBER_NOT_FOUND, SIGN_ID_IN_USE } from './errors.js'
import { toMemberResource } from './mapper.js'
import {
  MemberCreateBody,
  MemberPath,
  MemberResource,
  MemberSearchQuery,
  MemberUpdateBody,
  memberSearchResponses,
} from './schemas.js'

export interface MemberRoutesOptions {
  /** Its creations keep an Idempotency-Key's outcome in their own transaction. */
  readonly service: MemberService<MemberScope & IdempotencyScope>
  readonly pageFormat: PageFormat
}

/** The tag of these routes' operations in the OpenAPI document. */
export const MEMBER_TAG = {
  name: 'members',
  description: 'People with a credential; paged search.',
}
const tags = [MEMBER_TAG.name]
/** Every answer of these routes may carry personal data. */
const reading = { scope: 'members:read', noStore: true } as const
const writing = { scope: 'members:write', noStore: true } as const
const UPDATE_FIELD_ORDER = fieldOrder(MemberUpdateBody)

/**
 * PathMatch: a body memberId must be the path's. Like every constraint but NotNull and
 * NotEmpty, it passes null; "" passes only Email, Past and Size with min 0 (decisions §3),
 * so an empty id breaks NotEmpty, Size and PathMatch.
 */
function pathMismatch(bodyMemberId: unknown, pathMemberId: string): Violation[] {
  return typeof bodyMemberId === 'string' && bodyMemberId !== pathMemberId
    ? [{ constraint: 'PathMatch', target: 'memberId' }]
    : []
}

export const memberRoutes: FastifyPluginAsyncTypebox<MemberRoutesOptions> = async (
  app,
  { service, pageFormat },
) => {
  const searchResponses = memberSearchResponses(pageFormat)
  app.get(
    '/members',
    {
      config: { ...reading, cost: 'search' },
      schema: {
        operationId: 'searchMembers',
        description:
          'Members whose firstName or lastName starts with name (case-sensitive; % and _ match themselves), in the order of sort, ties broken by memberId. A MemberPage of page and size; with unpaged=true a plain array of every match, at most 1,000 (a larger match is 400 e.ex.fw.7002 with target unpaged).',
        tags,
        summary: 'Members whose first or last name starts with name: a page, or all (unpaged).',
        querystring: MemberSearchQuery,
        response: {
          200: described(
            searchResponses.either,
            'A MemberPage; with unpaged=true, a plain array of every matching Member.',
          ),
          ...errorResponses(QUERY_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { name, page, size, sort, unpaged } = request.query
      const orders = parseSort<SortableProperty>(sort)
      const search: MemberSearch = { namePrefix: name, sort: orders }
      // The union would make the serializer try each shape by validating the data; each
      // answer knows its shape, so it uses that shape's serializer (compiled once, cached).
      // Chosen only once the answer exists, so that an error keeps the error's serializer.
      const answerAs = (schema: Record<string, unknown>) =>
        reply.serializer(reply.compileSerializationSchema(schema))
      if (unpaged) {
        const members = await service.searchAll(search, request.clientKey)
        answerAs(searchResponses.list)
        return members.map(toMemberResource)
      }
      const { members, total } = await service.search(search, { page, size }, request.clientKey)
      const content = members.map(toMemberResource)
      answerAs(searchResponses.page)
      return toPage({ content, page, size, total, sort: orders }, pageFormat)
    },
  )

  app.post(
    '/members',
    {
      schema: {
        operationId: 'createMember',
        description:
          'Creates a member with its credential. A null or empty signId becomes the e-mail address in lower case; a sign id already in use is 409 e.ex.mm.8001. The password is kept only as an argon2id hash and never answered. An Idempotency-Key makes a retry safe.',
        tags,
        summary: 'Create a member with its credential (Location and ETag headers name it).',
        body: MemberCreateBody,
        response: {
          201: described(MemberResource, 'The created member.', ['ETag', 'Location']),
          ...errorResponses(BODY_ERRORS, SIGN_ID_IN_USE),
        },
      },
      config: { ...writing, idempotent: true, cost: 'hashing' },
    },
    async (request, reply) => {
      const { credential, ...profile } = request.body
      const input = {
        ...profile,
        credential: { signId: credential.signId, password: credential.password },
      }
      return answerCreated(
        request,
        reply,
        (alongside) => service.create(input, alongside, request.clientKey),
        (member: Member) => ({
          resource: toMemberResource(member),
          location: locationOf(request, member.memberId),
          etag: etagOf(member.version),
        }),
      )
    },
  )

  app.get(
    '/members/:memberId',
    {
      config: reading,
      schema: {
        operationId: 'getMember',
        description:
          'The member and its ETag. With If-None-Match naming the current ETag the answer is 304 without a body.',
        tags,
        summary: 'One member, with its ETag; If-None-Match gives 304.',
        params: MemberPath,
        response: {
          200: described(MemberResource, 'The member.', ['ETag']),
          304: noBody('If-None-Match names the current ETag.', ['ETag']),
          ...errorResponses(MEMBER_NOT_FOUND),
        },
      },
    },
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
      config: writing,
      schema: {
        operationId: 'updateMember',
        description:
          'Overwrites the profile from the body (an absent optional field becomes null). The body memberId must equal the path id (PathMatch); the credential and the time stamps cannot be changed here. With If-Match, only while the member is at the version that ETag names (else 412).',
        tags,
        summary: 'Overwrite the profile (If-Match makes it conditional).',
        params: MemberPath,
        body: MemberUpdateBody,
        response: {
          200: described(MemberResource, 'The updated member.', ['ETag']),
          ...errorResponses(BODY_ERRORS, MEMBER_NOT_FOUND, PRECONDITION_ERRORS),
        },
      },
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

  app.delete(
    '/members/:memberId',
    {
      config: writing,
      schema: {
        operationId: 'deleteMember',
        description:
          'Deletes the member and its credential. With If-Match, only while the member is at the version that ETag names (else 412).',
        tags,
        summary: 'Delete the member and its credential (If-Match makes it conditional).',
        params: MemberPath,
        response: {
          204: noBody('Deleted.'),
          ...errorResponses(MEMBER_NOT_FOUND, PRECONDITION_ERRORS, BODY_FORMAT_ERRORS),
        },
      },
    },
    async (request, reply) => {
      await service.delete(request.params.memberId, ifMatchCondition(request.headers['if-match']))
      return noContent(reply)
    },
  )

  registerOptionsRoutes(app, {
    collection: '/members',
    idParam: 'memberId',
    params: MemberPath,
    tags,
    operationIds: ['membersOptions', 'memberOptions'],
    config: { noStore: true },
    notFound: MEMBER_NOT_FOUND,
    noun: 'member',
    exists: (id) => service.get(id),
  })
}
