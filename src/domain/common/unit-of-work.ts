import type { IdempotencyRepository } from '../idempotency/repository.js'
import type { MemberRepository } from '../member/repository.js'
import type { TodoRepository } from '../todo/repository.js'

/** The repositories bound to one transaction: what they write commits or rolls back together. */
export interface TransactionScope {
  readonly todos: TodoRepository
  readonly members: MemberRepository
  readonly idempotency: IdempotencyRepository
}

/**
 * Runs `work` in one transaction: it commits when `work` resolves and rolls back when it
 * throws (the error is passed on). Keep slow work (hashing, network) outside: on SQLite
 * the one connection is held for the whole of it.
 */
export interface UnitOfWork {
  run<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T>
}

/**
 * More writes that belong with a resource being created, such as the answer kept for an
 * Idempotency-Key: run in the creation's unit of work right after the resource is
 * written, so that both are stored or neither. Throwing rolls the creation back.
 */
export type Alongside<Created> = (created: Created, scope: TransactionScope) => Promise<void>
