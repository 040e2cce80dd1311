import Fastify, { type FastifyContextConfig } from 'fastify'
import { describe, expect, it } from 'vitest'
import { catalogueOf, resourceAnswers } from '../../src/api/errors/catalogue.js'
import { domainProblems } from '../../src/api/errors/domain-errors.js'
import { describeApi } from '../../src/api/openapi/document.js'
import { requireDeclaredScopes } from '../../src/api/route-policy/route-policy.js'
import { ResourceNotFoundError } from '../../src/domain/common/errors.js'
import { migrationsOf } from '../../src/infra/db/migrate.js'
import { RESOURCES } from '../../src/resources/index.js'
import { todoResource } from '../../src/resources/todo/index.js'

/**
 * What the shared rooms take from the list of resources refuses a resource that is left
 * out, or that claims what another has: docs/architecture.md, "Adding a resource".
 */

/** A second resource's errors, with a code of its own or one the Todo has. */
function errorsClaiming(code: `e.${string}`) {
  const answers = resourceAnswers({
    [code]: { status: 404, description: 'No group has this id.', texts: { en: 'x', ja: 'x' } },
  })
  const notFound = Object.values(answers)[0]
  if (notFound === undefined) throw new Error('no answer')
  return { answers, notFound, rules: {} }
}

describe('the registries of the resources', () => {
  it('answer each resource its own 404, and leave a resource no module names unanswered', () => {
    const problem = domainProblems(RESOURCES)
    expect(problem(new ResourceNotFoundError('todo', 'T1'))?.code).toBe('e.ex.td.5001')
    expect(problem(new ResourceNotFoundError('member', 'M1'))?.code).toBe('e.ex.mm.5001')
    expect(problem(new ResourceNotFoundError('group', 'G1'))).toBeUndefined()
  })

  it('refuse two resources that claim one error code, or one business rule', () => {
    const group = { name: 'group', errors: errorsClaiming('e.ex.gr.5001') }
    expect(catalogueOf([...RESOURCES, group]).get('e.ex.gr.5001')).toHaveLength(1)
    const copy = { name: 'group', errors: errorsClaiming('e.ex.td.5001') }
    expect(() => catalogueOf([...RESOURCES, copy])).toThrow('group claims e.ex.td.5001')
    const sameRule = { name: 'group', errors: todoResource.errors }
    expect(() => domainProblems([todoResource, sameRule])).toThrow('one business rule')
  })

  it('refuse two migrations with one number, and keep them all in name order', () => {
    expect(Object.keys(migrationsOf(RESOURCES))).toEqual([
      '0001-create-todo',
      '0002-create-member',
      '0003-create-idempotency-key',
      '0004-member-search-indexes',
    ])
    const clash = {
      migrations: { '0002-create-group': todoResource.migrations['0001-create-todo'] },
    }
    expect(() => migrationsOf([...RESOURCES, clash])).toThrow('Two migrations are numbered 0002')
  })

  it('refuse an API route whose scope no resource grants, or which declares none', async () => {
    const granted = new Set(RESOURCES.flatMap(({ scopes }) => Object.keys(scopes)))
    const configs: FastifyContextConfig[] = [{ scope: 'groups:read' }, {}]
    for (const config of configs) {
      const app = Fastify()
      requireDeclaredScopes(app, granted)
      expect(() => app.get('/groups', { config }, async () => [])).toThrow(/scope/)
      await app.close()
    }
  })

  it('refuse to document a route whose tag no resource declares', async () => {
    const app = Fastify()
    await describeApi(app, {
      version: '0',
      authenticated: false,
      rateLimited: false,
      resources: RESOURCES.map(({ tag, scopes }) => ({ tag, scopes, schemas: [] })),
    })
    app.get('/groups', { schema: { tags: ['groups'] } }, async () => [])
    await app.ready()
    expect(() => app.swagger()).toThrow('names the tag groups, which no resource declares')
    await app.close()
  })
})
