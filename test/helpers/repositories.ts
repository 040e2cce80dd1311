import type { Database } from '../../src/infra/db/create-database.js'
import { KyselyIdempotencyRepository } from '../../src/infra/idempotency/idempotency-repository.js'
import { KyselyMemberRepository } from '../../src/resources/member/infra/member-repository.js'
import { MemberSearchQueries } from '../../src/resources/member/infra/member-search.js'
import { KyselyTodoRepository } from '../../src/resources/todo/infra/todo-repository.js'

/**
 * Every repository on one database: writes and lookups on its main connections, the long
 * reads (member search, the todo list) on its own (`Database.reads`).
 */
export function repositoriesOf(database: Database) {
  return {
    todos: new KyselyTodoRepository(database),
    members: new KyselyMemberRepository(database, {
      searches: new MemberSearchQueries(database.engine),
    }),
    idempotency: new KyselyIdempotencyRepository(database.db),
  }
}
