import type { Kysely } from 'kysely'
import type { TransactionScope, UnitOfWork } from '../../domain/common/unit-of-work.js'
import type { KyselyIdempotencyRepository } from '../idempotency/idempotency-repository.js'
import type { KyselyMemberRepository } from '../member/member-repository.js'
import type { KyselyTodoRepository } from '../todo/todo-repository.js'
import type { DatabaseSchema } from './schema.js'

/** The repositories a unit of work binds to its transaction. */
export interface TransactionalRepositories {
  readonly todos: KyselyTodoRepository
  readonly members: KyselyMemberRepository
  readonly idempotency: KyselyIdempotencyRepository
}

/**
 * A unit of work is one Kysely transaction, the same code on SQLite and PostgreSQL. Its
 * repositories are the given ones bound to the transaction: they share the statements
 * those compiled, so a unit of work costs its BEGIN and COMMIT and little more.
 */
export class KyselyUnitOfWork implements UnitOfWork {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly repositories: TransactionalRepositories,
  ) {}

  run<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    const { todos, members, idempotency } = this.repositories
    return this.db.transaction().execute((trx) =>
      work({
        todos: todos.inTransaction(trx),
        members: members.inTransaction(trx),
        idempotency: idempotency.inTransaction(trx),
      }),
    )
  }
}
