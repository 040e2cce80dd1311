import fc from 'fast-check'
import type { Step } from '../../../testing/request-steps.js'
import {
  itemMethods,
  itemStep,
  itemWrite,
  language,
  post,
  type ResourceRequests,
} from '../../../testing/resource-requests.js'
import { memberCreateBody, memberUpdate, SEED_MEMBERS, validMemberCreateBody } from './bodies.js'
import { sameSearchAnswer, searchQuery } from './searches.js'

/** A search: GET (or HEAD) on the collection with a query. */
const search = fc
  .tuple(fc.constantFrom('GET', 'GET', 'GET', 'HEAD'), searchQuery, language)
  .map(([method, query, lang]): Step => ({ method, collection: 'members', query, headers: lang }))

/** Generated Member requests for the tests (src/testing/resource-requests.ts). */
export const requests: ResourceRequests = {
  kind: 'member',
  collection: 'members',
  idField: 'memberId',
  unknownId: 'NoSuchId00',
  // Credentials are deleted before the members they belong to, and inserted after them.
  tables: ['member', 'member_credential'],
  seeds: SEED_MEMBERS,
  steps: [
    { weight: 4, arbitrary: post('members', memberCreateBody) },
    {
      weight: 3,
      // A PUT without a body is the todos' finish; members are PUT with one (below).
      arbitrary: itemStep(
        'members',
        'member',
        itemMethods.map((method) => (method === 'PUT' ? 'GET' : method)),
      ),
    },
    { weight: 4, arbitrary: itemWrite('members', memberUpdate) },
    { weight: 4, arbitrary: search },
  ],
  validCreates: { weight: 2, arbitrary: post('members', validMemberCreateBody) },
  sameAnswer: (step, a, b) =>
    step.id === undefined && step.method === 'GET' ? sameSearchAnswer(step, a, b) : undefined,
}
