/**
 * Runs `work` in one transaction, with `Scope`'s repositories bound to it: it commits when
 * `work` resolves and rolls back when it throws (the error is passed on). Each service
 * names the repositories it needs of a scope (TodoScope, MemberScope, IdempotencyScope);
 * infra binds them all (infra/db/unit-of-work.ts). Keep slow work (hashing, network)
 * outside: on SQLite the one connection is held for the whole of it.
 */
export interface UnitOfWork<Scope> {
  run<T>(work: (scope: Scope) => Promise<T>): Promise<T>
}

/**
 * More writes that belong with a resource being created, such as the answer kept for an
 * Idempotency-Key: run in the creation's unit of work right after the resource is
 * written, so that both are stored or neither. Throwing rolls the creation back.
 */
export type Alongside<Created, Scope> = (created: Created, scope: Scope) => Promise<void>
