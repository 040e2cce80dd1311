import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { ApiProblem } from '../../src/api/errors/api-problem.js'
import type { Violation } from '../../src/api/errors/constraints.js'
import { text } from '../../src/api/schemas/fields.js'
import { validatorCompiler } from '../../src/api/validation/compiler.js'

/**
 * The mapping from schema keywords to the contract's answers (decisions §1, §2, §3),
 * without HTTP: the route validator as Fastify would call it.
 */

type Validate = (data: unknown) => true | { error: ApiProblem }

function compile(schema: unknown, httpPart: 'body' | 'querystring' = 'body'): Validate {
  return validatorCompiler({ schema, httpPart, method: 'POST', url: '/x' }) as Validate
}

/** The ApiProblem a validator returns for `data` (fails the test when `data` passes). */
function problemOf(validate: Validate, data: unknown): ApiProblem {
  const result = validate(data)
  if (result === true) throw new Error(`expected ${JSON.stringify(data)} to be rejected`)
  expect(result.error).toBeInstanceOf(ApiProblem)
  return result.error
}

/** Expects a 400 e.ex.fw.7001 with exactly these violations, in this order. */
function expectViolations(validate: Validate, data: unknown, violations: Violation[]): void {
  const problem = problemOf(validate, data)
  expect({ status: problem.status, code: problem.code, target: problem.target }).toEqual({
    status: 400,
    code: 'e.ex.fw.7001',
    target: undefined,
  })
  expect(problem.violations).toEqual(violations)
}

/** Expects a binding failure: the code (7004/7005/7006) and its target, with no violations. */
function expectBindingProblem(
  validate: Validate,
  data: unknown,
  code: string,
  target: string,
): void {
  const problem = problemOf(validate, data)
  expect({
    status: problem.status,
    code: problem.code,
    target: problem.target,
    violations: problem.violations,
  }).toEqual({ status: 400, code, target, violations: [] })
}

const SIZE_FIRST_NAME = { min: 0, max: 128 }
const SIZE_EMAIL = { min: 0, max: 256 }
const SIZE_PASSWORD = { min: 8, max: 32 }

/** Shaped like the Member resource under the Create rules. */
const MEMBER = Type.Object(
  {
    memberId: text({ mustBeNull: true }),
    firstName: text({ notEmpty: true, size: [0, 128] }),
    genderCode: text({ notEmpty: true, codeList: 'CL_GENDER' }),
    dateOfBirth: text({ notNull: true, format: 'date', past: true }),
    emailAddress: text({ notEmpty: true, size: [0, 256], email: true }),
    credential: Type.Unsafe({
      type: ['object', 'null'],
      default: null,
      'x-not-null': true,
      additionalProperties: false,
      properties: {
        signId: text({ size: [0, 256], email: true }),
        password: text({ notNull: true, size: [8, 32] }),
      },
    }),
    createdAt: text({ format: 'date-time', mustBeNull: true }),
  },
  { additionalProperties: false },
)

const validateMember = compile(MEMBER)

/** A member that passes every rule, with `changes` applied on top. */
function member(changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    memberId: null,
    firstName: 'Taro',
    genderCode: '1',
    dateOfBirth: '2000-01-01',
    emailAddress: 'taro@example.com',
    credential: { signId: null, password: 'password1' },
    createdAt: null,
    ...changes,
  }
}

const credential = (changes: Record<string, unknown>) => ({
  signId: null,
  password: 'password1',
  ...changes,
})

describe('body validation mapping', () => {
  it('accepts a valid member', () => {
    expect(validateMember(member())).toBe(true)
  })

  it('orders details by the schema field order, credential fields after credential, whatever the JSON key order', () => {
    const data = {
      createdAt: '2020-01-01T00:00:00.000Z',
      credential: { password: 'short', signId: 'not-an-email' },
      emailAddress: '',
      dateOfBirth: '2999-01-01',
      genderCode: '9',
      firstName: '',
      memberId: 'M000000001',
    }
    expectViolations(validateMember, data, [
      { constraint: 'Null', target: 'memberId' },
      { constraint: 'NotEmpty', target: 'firstName' },
      {
        constraint: 'ExistInCodeList',
        target: 'genderCode',
        attributes: { codeListId: 'CL_GENDER' },
      },
      { constraint: 'Past', target: 'dateOfBirth' },
      { constraint: 'NotEmpty', target: 'emailAddress' },
      { constraint: 'Email', target: 'credential.signId' },
      { constraint: 'Size', target: 'credential.password', attributes: SIZE_PASSWORD },
      { constraint: 'Null', target: 'createdAt' },
    ])
  })

  it('orders the details of one field NotNull, NotEmpty, Null, Size, Email, Past, ExistInCodeList', () => {
    const validate = compile(
      Type.Object({
        required: text({ notNull: true, notEmpty: true }),
        everything: text({
          notEmpty: true,
          mustBeNull: true,
          size: [2, 3],
          email: true,
          past: true,
          codeList: 'CL_GENDER',
        }),
      }),
    )
    expectViolations(validate, { required: null, everything: 'x' }, [
      { constraint: 'NotNull', target: 'required' },
      { constraint: 'NotEmpty', target: 'required' },
      { constraint: 'Null', target: 'everything' },
      { constraint: 'Size', target: 'everything', attributes: { min: 2, max: 3 } },
      { constraint: 'Email', target: 'everything' },
      { constraint: 'Past', target: 'everything' },
      {
        constraint: 'ExistInCodeList',
        target: 'everything',
        attributes: { codeListId: 'CL_GENDER' },
      },
    ])
  })

  it('an e-mail address of 257 characters that is not an e-mail gives Size then Email', () => {
    expectViolations(validateMember, member({ emailAddress: 'a'.repeat(257) }), [
      { constraint: 'Size', target: 'emailAddress', attributes: SIZE_EMAIL },
      { constraint: 'Email', target: 'emailAddress' },
    ])
  })

  it('null passes Size, Email, Past and ExistInCodeList (only NotNull/NotEmpty fire)', () => {
    const data = member({
      genderCode: null,
      dateOfBirth: null,
      emailAddress: null,
      credential: credential({ signId: null }),
    })
    expectViolations(validateMember, data, [
      { constraint: 'NotEmpty', target: 'genderCode' },
      { constraint: 'NotNull', target: 'dateOfBirth' },
      { constraint: 'NotEmpty', target: 'emailAddress' },
    ])
    const optional = compile(
      Type.Object({
        value: text({ size: [2, 3], email: true, past: true, codeList: 'CL_GENDER' }),
      }),
    )
    expect(optional({ value: null })).toBe(true)
  })

  it('"" passes Email, Past, Size with min 0 and ExistInCodeList', () => {
    expect(validateMember(member({ credential: credential({ signId: '' }) }))).toBe(true)
    const optional = compile(
      Type.Object({
        value: text({ size: [0, 3], email: true, past: true, codeList: 'CL_GENDER' }),
      }),
    )
    expect(optional({ value: '' })).toBe(true)
  })

  it('"" fails NotEmpty exactly once', () => {
    expectViolations(validateMember, member({ firstName: '', genderCode: '', emailAddress: '' }), [
      { constraint: 'NotEmpty', target: 'firstName' },
      { constraint: 'NotEmpty', target: 'genderCode' },
      { constraint: 'NotEmpty', target: 'emailAddress' },
    ])
  })

  it('judges absent fields as null', () => {
    expectViolations(validateMember, {}, [
      { constraint: 'NotEmpty', target: 'firstName' },
      { constraint: 'NotEmpty', target: 'genderCode' },
      { constraint: 'NotNull', target: 'dateOfBirth' },
      { constraint: 'NotEmpty', target: 'emailAddress' },
      { constraint: 'NotNull', target: 'credential' },
    ])
    expectViolations(validateMember, member({ credential: {} }), [
      { constraint: 'NotNull', target: 'credential.password' },
    ])
  })

  it.each([
    ['memberId', 'M000000001'],
    ['memberId', ''],
    ['createdAt', '2020-01-01T00:00:00.000Z'],
  ])('x-null: %s = %j gives Null', (field, value) => {
    expectViolations(validateMember, member({ [field]: value }), [
      { constraint: 'Null', target: field },
    ])
  })

  it('an impossible calendar date is a type mismatch (7005)', () => {
    expectBindingProblem(
      validateMember,
      member({ dateOfBirth: '2023-02-30' }),
      'e.ex.fw.7005',
      'dateOfBirth',
    )
  })

  it('a future date gives Past', () => {
    const future = `${new Date().getUTCFullYear() + 1}-01-01`
    expectViolations(validateMember, member({ dateOfBirth: future }), [
      { constraint: 'Past', target: 'dateOfBirth' },
    ])
  })

  it('a nested unknown field is 7004 with its path as target', () => {
    const data = member({ credential: credential({ foo: 1 }) })
    expectBindingProblem(validateMember, data, 'e.ex.fw.7004', 'credential.foo')
  })

  it('a nested value of the wrong type is 7005 with its path as target', () => {
    const data = member({ credential: credential({ password: 5 }) })
    expectBindingProblem(validateMember, data, 'e.ex.fw.7005', 'credential.password')
  })

  it('Size carries its bounds; a max-only rule has min 0', () => {
    expectViolations(validateMember, member({ credential: credential({ password: 'short' }) }), [
      { constraint: 'Size', target: 'credential.password', attributes: SIZE_PASSWORD },
    ])
    expectViolations(validateMember, member({ firstName: 'a'.repeat(129) }), [
      { constraint: 'Size', target: 'firstName', attributes: SIZE_FIRST_NAME },
    ])
  })
})

describe('query string validation mapping', () => {
  const validateQuery = compile(
    Type.Object({
      page: Type.Integer({ minimum: 0, default: 0 }),
      size: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
      name: text({ notEmpty: true }),
    }),
    'querystring',
  )

  it.each(['abc', '1.5'])('page=%s cannot be converted: 7006 target page', (page) => {
    expectBindingProblem(validateQuery, { page, name: 'x' }, 'e.ex.fw.7006', 'page')
  })

  it('a converted value that breaks a rule is 7002 with details in schema order', () => {
    const problem = problemOf(validateQuery, { name: '', size: '101', page: '-1' })
    expect({ status: problem.status, code: problem.code, target: problem.target }).toEqual({
      status: 400,
      code: 'e.ex.fw.7002',
      target: undefined,
    })
    expect(problem.violations).toEqual([
      { constraint: 'Min', target: 'page', attributes: { value: 0 } },
      { constraint: 'Max', target: 'size', attributes: { value: 100 } },
      { constraint: 'NotEmpty', target: 'name' },
    ])
  })

  it('converts valid strings to numbers in place and fills defaults', () => {
    const query: Record<string, unknown> = { page: '2', size: '50', name: 'x' }
    expect(validateQuery(query)).toBe(true)
    expect(query).toEqual({ page: 2, size: 50, name: 'x' })

    const defaulted: Record<string, unknown> = { name: 'x' }
    expect(validateQuery(defaulted)).toBe(true)
    expect(defaulted).toEqual({ page: 0, size: 20, name: 'x' })
  })
})
