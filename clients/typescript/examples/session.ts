/**
 * The client in use (type-checked with the client, see tsconfig.json's include): an
 * optimistic update that reloads and retries once when someone else changed the member.
 */
import { ApiError, createApiClient, type Member, memberUpdateFrom } from '../src/client.js'

export async function renameMember(baseUrl: string, memberId: string, lastName: string) {
  const api = createApiClient({ baseUrl, acceptLanguage: 'en' })
  for (let attempt = 1; ; attempt += 1) {
    const { member, etag } = await api.getMember(memberId)
    try {
      return await api.updateMember(memberId, memberUpdateFrom(member, { lastName }), { etag })
    } catch (error) {
      // 412 e.ex.fw.8002: changed since we read it. Read it again and retry, once.
      if (error instanceof ApiError && error.status === 412 && attempt < 2) continue
      throw error
    }
  }
}

export async function namesStartingWith(baseUrl: string, prefix: string): Promise<string[]> {
  const api = createApiClient({ baseUrl })
  const page = await api.searchMembers({ name: prefix, size: 10, sort: ['lastName,asc'] })
  const everyone: Member[] = await api.searchAllMembers({ name: prefix })
  return [`${page.totalElements} in all`, ...everyone.map((m) => `${m.firstName} ${m.lastName}`)]
}

export async function createOnce(baseUrl: string, title: string, key: string) {
  const api = createApiClient({ baseUrl })
  const { todo, location, replayed } = await api.createTodo(
    { todoTitle: title },
    { idempotencyKey: key },
  )
  return { id: todo.todoId, location, replayed }
}
