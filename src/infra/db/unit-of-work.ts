import type { Kysely } from 'kysely'
import type { UnitOfWork } from '../../domain/common/unit-of-work.js'
import type { IdempotencyScope } from '../../domain/idempotency/service.js'
import type { MemberScope } from '../../domain/member/service.js'
import type { TodoScope } from '../../domain/todo/service.js'
import type { DatabaseSchema } from './schema.js'

/** A repository that can also be bound to a transaction (infra/todo, infra/member, …). */
type Transactional<Repository> = Repository & {
  inTransaction(trx: Kysely<DatabaseSchema>): Repository
}

/** Every repository bound to one transaction: what they write commits or rolls back together. */
export type TransactionScope = TodoScope & MemberScope & IdempotencyScope

/** The repositories a unit of work binds to its transaction. */
export type TransactionalRepositories = {
  readonly [Name in keyof TransactionScope]: Transactional<TransactionScope[Name]>
}

/**
 * A unit of work is one Kysely transaction, the same code on SQLite and PostgreSQL. Its
 * repositories are the given ones bound to the transaction: they share the statements
 * those compiled, so a unit of work costs its BEGIN and COMMIT and little more.
 */
export class KyselyUnitOfWork implements UnitOfWork<TransactionScope> {
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
