import type { Kysely } from 'kysely'
import type { UnitOfWork } from '../../domain/common/unit-of-work.js'
import type { DatabaseSchema } from './schema.js'

/** A repository that can also be bound to a transaction (each resource's infra/, infra/idempotency). */
export type TransactionalRepository<Repository> = Repository & {
  inTransaction(trx: Kysely<DatabaseSchema>): Repository
}

/** Repositories by name, each of which can be bound to a transaction. */
export type Transactional<Scope> = {
  readonly [Name in keyof Scope]: TransactionalRepository<Scope[Name]>
}

/**
 * A unit of work is one Kysely transaction, the same code on SQLite and PostgreSQL. Its
 * repositories are the given ones bound to the transaction: they share the statements
 * those compiled, so a unit of work costs its BEGIN and COMMIT and little more.
 */
export class KyselyUnitOfWork<Scope extends object> implements UnitOfWork<Scope> {
  readonly #entries: readonly (readonly [string, TransactionalRepository<unknown>])[]

  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    repositories: Transactional<Scope>,
  ) {
    this.#entries = Object.entries(repositories)
  }

  run<T>(work: (scope: Scope) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => {
      const bound = Object.fromEntries(
        this.#entries.map(([name, repository]) => [name, repository.inTransaction(trx)]),
      )
      return work(bound as Scope)
    })
  }
}
