import type { ErrorAnswer } from '../../api/errors/catalogue.js'
import { hashPassword } from '../../infra/crypto/argon2.js'
import type { ResourceModule } from '../../platform/resource-module.js'
import { MEMBER_ERRORS, MEMBER_NOT_FOUND, SIGN_ID_IN_USE } from './api/errors.js'
import { MEMBER_TAG, memberRoutes } from './api/routes.js'
import { memberComponents } from './api/schemas.js'
import { newMemberId } from './domain/member-id.js'
import { MEMBER, type MemberRule } from './domain/model.js'
import { type MemberScope, MemberService } from './domain/service.js'
import { KyselyMemberRepository } from './infra/member-repository.js'
import { MemberSearchQueries } from './infra/member-search.js'
import { createMember } from './infra/migrations/0002-create-member.js'
import { memberSearchIndexes } from './infra/migrations/0004-member-search-indexes.js'

/** Members: people with a credential, searched by name in pages, at /api/v1/members. */
export const memberResource = {
  name: MEMBER,
  tag: MEMBER_TAG,
  scopes: {
    'members:read': 'Search Members and read one by id.',
    'members:write': 'Create, update and delete Members.',
  },
  errors: {
    answers: MEMBER_ERRORS,
    notFound: MEMBER_NOT_FOUND,
    rules: { 'sign-id-in-use': SIGN_ID_IN_USE } satisfies Record<MemberRule, ErrorAnswer>,
  },
  migrations: {
    '0002-create-member': createMember,
    '0004-member-search-indexes': memberSearchIndexes,
  },
  schemas: ({ pageFormat }) => memberComponents(pageFormat),
  async install(api, { config, database, work, now, unitOfWork }) {
    const repository = new KyselyMemberRepository(database, {
      searches: new MemberSearchQueries(database.engine),
    })
    const service = new MemberService({
      repository,
      unitOfWork: unitOfWork<MemberScope>({ members: repository }),
      now,
      newId: newMemberId,
      hashPassword,
      searches: work.searches,
      hashing: work.hashing,
    })
    await api.register(memberRoutes, { service, pageFormat: config.pageFormat })
  },
} as const satisfies ResourceModule
