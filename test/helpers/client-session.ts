import { randomBytes } from 'node:crypto'
import { expect } from 'vitest'
import {
  type ApiClientOptions,
  ApiError,
  createApiClient,
  type MemberCreate,
  memberUpdateFrom,
} from '../../clients/typescript/src/client.js'

/**
 * A session through the typed client alone (clients/typescript), as steps that assert
 * with vitest's expect: every operation a client uses (createTodo, listTodos, getTodo,
 * finishTodo, deleteTodo, createMember, getMember, updateMember with If-Match, the paged
 * and unpaged searchMembers, deleteMember) and the failures it must understand (404, 409
 * already finished, 412 stale ETag, 400 validation, an Idempotency-Key replay, messages
 * in Accept-Language ja). typed-client.test.ts runs it against the server directly,
 * prism-proxy.test.ts through Prism's validating proxy.
 */

/** Where the session's requests go. */
export interface SessionTarget {
  /** The service (or a proxy in front of it), e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string
  /** A fetch of the caller's own (to watch every response); the global fetch when absent. */
  readonly fetch?: ApiClientOptions['fetch']
}

/**
 * One step of the session. `run` makes its names and keys unique, so the same server can
 * take the session more than once (a fresh one per run: sessionRun()).
 */
export type SessionStep = (target: SessionTarget, run: string) => Promise<void>

const PASSWORD = 'Pa55word-Secret'

/** A fresh run id for one pass through the session. */
export function sessionRun(): string {
  return randomBytes(3).toString('hex')
}

function clientOf(target: SessionTarget, acceptLanguage?: string) {
  return createApiClient({
    baseUrl: target.baseUrl,
    ...(target.fetch !== undefined && { fetch: target.fetch }),
    ...(acceptLanguage !== undefined && { acceptLanguage }),
  })
}

/** The ApiError a call throws (failing the test if it throws none, or something else). */
async function apiError(call: Promise<unknown>): Promise<ApiError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(ApiError)
  return error as ApiError
}

const todoLifecycle: SessionStep = async (target, run) => {
  const api = clientOf(target)
  const key = `typed-client-${run}`
  const first = await api.createTodo({ todoTitle: 'Typed client' }, { idempotencyKey: key })
  expect(first.replayed).toBe(false)
  expect(first.todo).toMatchObject({ todoTitle: 'Typed client', finished: false })
  expect(first.location).toContain(`/api/v1/todos/${first.todo.todoId}`)
  expect(first.etag).toMatch(/^"/)
  const replay = await api.createTodo({ todoTitle: 'Typed client' }, { idempotencyKey: key })
  expect(replay.replayed).toBe(true)
  expect(replay.todo.todoId).toBe(first.todo.todoId)
  expect((await api.listTodos()).map((listed) => listed.todoId)).toContain(first.todo.todoId)

  const { todo, etag } = await api.getTodo(first.todo.todoId)
  expect(todo).toEqual(first.todo)
  const finished = await api.finishTodo(todo.todoId, { etag })
  expect(finished.todo.finished).toBe(true)
  expect(finished.etag).not.toBe(etag)

  const again = await apiError(api.finishTodo(todo.todoId))
  expect(again).toMatchObject({ status: 409, code: 'e.ex.td.8001' })
  expect(again.message).toContain(todo.todoId)
  expect(again.trackId).toMatch(/\S/)

  await api.deleteTodo(todo.todoId)
  expect(await apiError(api.getTodo(todo.todoId))).toMatchObject({ status: 404 })
}

const acceptLanguage: SessionStep = async (target) => {
  const { todo } = await clientOf(target).createTodo({ todoTitle: 'ja' })
  await clientOf(target).finishTodo(todo.todoId)
  const english = await apiError(clientOf(target, 'en').finishTodo(todo.todoId))
  const japanese = await apiError(clientOf(target, 'ja').finishTodo(todo.todoId))
  expect(japanese.code).toBe(english.code)
  expect(japanese.message).not.toBe(english.message)
  expect(japanese.message).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/)
  expect(japanese.message).toContain(todo.todoId)
}

const memberLifecycle: SessionStep = async (target, run) => {
  const api = clientOf(target)
  const body: MemberCreate = {
    firstName: `Typed${run}`,
    lastName: 'Client',
    genderCode: '2',
    dateOfBirth: '1990-04-01',
    emailAddress: `typed.${run}@example.com`,
    credential: { password: PASSWORD },
  }
  const created = await api.createMember(body, { idempotencyKey: `member-${run}` })
  expect(created.replayed).toBe(false)
  const memberId = created.member.memberId
  expect(created.location).toContain(`/api/v1/members/${memberId}`)

  const { member, etag } = await api.getMember(memberId)
  expect(member).toEqual(created.member)
  expect(etag).toBe(created.etag)
  const updated = await api.updateMember(
    memberId,
    memberUpdateFrom(member, { lastName: 'Updated' }),
    { etag },
  )
  expect(updated.member.lastName).toBe('Updated')
  expect(updated.etag).not.toBe(etag)
  const stale = await apiError(
    api.updateMember(memberId, memberUpdateFrom(member, { lastName: 'Stale' }), { etag }),
  )
  expect(stale).toMatchObject({ status: 412, code: 'e.ex.fw.8002' })
  expect((await api.getMember(memberId)).member.lastName).toBe('Updated')

  const page = await api.searchMembers({ name: `Typed${run}`, page: 0, size: 5 })
  expect(page.totalElements).toBe(1)
  expect(page.content.map((found) => found.memberId)).toEqual([memberId])
  const all = await api.searchAllMembers({ name: `Typed${run}` })
  expect(Array.isArray(all)).toBe(true)
  expect(all.map((found) => found.memberId)).toEqual([memberId])

  await api.deleteMember(memberId, { etag: updated.etag })
  expect(await apiError(api.getMember(memberId))).toMatchObject({ status: 404 })
  expect(await api.searchAllMembers({ name: `Typed${run}` })).toEqual([])
}

const validationFailure: SessionStep = async (target) => {
  const failure = await apiError(clientOf(target).createTodo({ todoTitle: '' }))
  expect(failure.status).toBe(400)
  expect(failure.code).toMatch(/^e\.ex\.fw\./)
  expect(failure.details.length).toBeGreaterThan(0)
  expect(failure.details[0]?.target).toBe('todoTitle')
}

/** The session's steps, in order, each named for the test that runs it. */
export const CLIENT_SESSION: readonly { readonly name: string; readonly step: SessionStep }[] = [
  {
    name: 'creates a todo once per idempotency key, finishes it by ETag, deletes it',
    step: todoLifecycle,
  },
  { name: 'answers in the client’s Accept-Language', step: acceptLanguage },
  { name: 'creates, reads, updates by ETag, searches and deletes a member', step: memberLifecycle },
  { name: 'reports a validation failure with its details', step: validationFailure },
]

/** The whole session, step after step, with a fresh run id. */
export async function runClientSession(target: SessionTarget): Promise<void> {
  const run = sessionRun()
  for (const { step } of CLIENT_SESSION) await step(target, run)
}
