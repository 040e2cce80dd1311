import type { Bulkhead } from '../common/bulkhead.js'
import {
  BusinessRuleError,
  PreconditionFailedError,
  ResourceNotFoundError,
} from '../common/errors.js'
import type { Alongside, UnitOfWork } from '../common/unit-of-work.js'
import { type VersionCondition, writeWhilePreconditionHolds } from '../common/version.js'
import { type NewTodo, type Todo, todoVersion } from './model.js'
import type { TodoListPosition, TodoRepository } from './repository.js'

export const TODO_NOT_FOUND = 'e.ex.td.5001'
export const TODO_ALREADY_FINISHED = 'e.ex.td.8001'

/**
 * Todos per query of the full list. Bigger pages cost more memory for every reader of the
 * list (and V8 lets its heap grow to several times what is live); smaller ones cost more
 * queries. Measured with 300,000 Todos, six full readers and 450 lists pipelined by
 * clients that never read (test/chaos/memory.test.ts), peak RSS SQLite / PostgreSQL:
 * 166 / 214 MB at 100, 240 / 226 MB at 250, 252 / 250 MB at 500; one list alone took
 * 1.3 / 2.3 s at 100, 1.0 / 1.4 s at 500.
 */
export const TODO_LIST_PAGE_SIZE = 100

export interface TodoServiceDeps {
  readonly repository: TodoRepository
  /** Transactions for a create with more writes alongside it. */
  readonly unitOfWork: UnitOfWork
  readonly now: () => Date
  readonly newId: () => string
  /**
   * The list's page queries, however many clients read it (decisions §9): a new list is
   * admitted or refused at its first page; a list already answering is never refused.
   */
  readonly lists: Bulkhead
}

export class TodoService {
  readonly #repository: TodoRepository
  readonly #unitOfWork: UnitOfWork
  readonly #now: () => Date
  readonly #newId: () => string
  readonly #lists: Bulkhead

  constructor(deps: TodoServiceDeps) {
    this.#repository = deps.repository
    this.#unitOfWork = deps.unitOfWork
    this.#now = deps.now
    this.#newId = deps.newId
    this.#lists = deps.lists
  }

  /**
   * Every Todo, oldest first, one page at a time: a page is read only when the consumer
   * asks for the next one, each with a short query of its own, so a slow consumer holds
   * no database connection. Not a snapshot: a Todo created or deleted while the list is
   * read may or may not be in it; none is listed twice.
   */
  list(pageSize: number = TODO_LIST_PAGE_SIZE): AsyncIterable<readonly Todo[]> {
    return new TodoPages(
      (after) =>
        this.#lists.run(() => this.#repository.listAfter(after, pageSize), {
          continuing: after !== undefined,
        }),
      pageSize,
    )
  }

  async get(todoId: string): Promise<Todo> {
    const todo = await this.#repository.findById(todoId)
    if (!todo) throw new ResourceNotFoundError(TODO_NOT_FOUND, [todoId])
    return todo
  }

  /**
   * A new Todo is always open and stamped by the service, whatever the client sent.
   * `alongside` runs in the insert's transaction (both are stored or neither); without
   * it the insert is a single statement, with no transaction around it.
   */
  async create(input: NewTodo, alongside?: Alongside<Todo>): Promise<Todo> {
    const todo: Todo = {
      todoId: this.#newId(),
      todoTitle: input.todoTitle,
      finished: false,
      createdAt: this.#now(),
    }
    if (alongside === undefined) {
      await this.#repository.insert(todo)
      return todo
    }
    await this.#unitOfWork.run(async (scope) => {
      await scope.todos.insert(todo)
      await alongside(todo, scope)
    })
    return todo
  }

  /** Open -> finished; there is no way back. */
  async finish(todoId: string, condition?: VersionCondition): Promise<Todo> {
    const current = await this.get(todoId)
    checkVersion(current, condition)
    if (current.finished) throw new BusinessRuleError(TODO_ALREADY_FINISHED, [todoId])
    const finished = await this.#repository.markFinished(todoId)
    if (finished) return finished
    // Lost a race with another finish or a delete: report what happened to it.
    await this.get(todoId)
    throw new BusinessRuleError(TODO_ALREADY_FINISHED, [todoId])
  }

  async delete(todoId: string, condition?: VersionCondition): Promise<void> {
    if (!condition) {
      if (!(await this.#repository.delete(todoId))) {
        throw new ResourceNotFoundError(TODO_NOT_FOUND, [todoId])
      }
      return
    }
    await writeWhilePreconditionHolds(
      condition,
      () => this.get(todoId),
      todoVersion,
      async (current) => (await this.#repository.delete(todoId, current.finished)) || undefined,
    )
  }
}

/**
 * The pages of the list, each read when asked for. Written out rather than as an async
 * generator: a suspended generator keeps all its locals alive, its last page included,
 * for as long as its consumer waits on a slow client; this keeps only where to go on.
 */
class TodoPages implements AsyncIterableIterator<readonly Todo[]> {
  #after: TodoListPosition | undefined
  #finished = false

  constructor(
    private readonly readAfter: (after: TodoListPosition | undefined) => Promise<Todo[]>,
    private readonly pageSize: number,
  ) {}

  [Symbol.asyncIterator](): this {
    return this
  }

  async next(): Promise<IteratorResult<readonly Todo[], undefined>> {
    if (this.#finished) return { done: true, value: undefined }
    const page = await this.readAfter(this.#after)
    const last = page.at(-1)
    this.#finished = !last || page.length < this.pageSize
    if (!last) return { done: true, value: undefined }
    this.#after = { createdAt: last.createdAt, todoId: last.todoId }
    return { done: false, value: page }
  }

  async return(): Promise<IteratorResult<readonly Todo[], undefined>> {
    this.#finished = true
    return { done: true, value: undefined }
  }
}

function checkVersion(todo: Todo, condition: VersionCondition | undefined): void {
  if (condition && !condition.matches(todoVersion(todo))) throw new PreconditionFailedError()
}
