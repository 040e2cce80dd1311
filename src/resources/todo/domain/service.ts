import type { WorkAdmission } from '../../../domain/common/admission.js'
import { BusinessRuleError, ResourceNotFoundError } from '../../../domain/common/errors.js'
import { instantOf } from '../../../domain/common/instant.js'
import type { Alongside, UnitOfWork } from '../../../domain/common/unit-of-work.js'
import {
  requirePrecondition,
  type VersionCondition,
  writeWhilePreconditionHolds,
} from '../../../domain/common/version.js'
import { type NewTodo, TODO, type Todo, type TodoRule, todoVersion } from './model.js'
import type { TodoListPosition, TodoRepository } from './repository.js'

/**
 * Todos per query of the full list: bigger pages cost every reader of the list more
 * memory, smaller ones more queries (the measurements behind it: docs/performance.md,
 * "The todo list's page size").
 */
export const TODO_LIST_PAGE_SIZE = 100

/** What a todo write needs of a unit of work: its own repository in the transaction. */
export interface TodoScope {
  readonly todos: TodoRepository
}

export interface TodoServiceDeps<Scope extends TodoScope> {
  readonly repository: TodoRepository
  /** Transactions for a create with more writes alongside it. */
  readonly unitOfWork: UnitOfWork<Scope>
  readonly now: () => Date
  readonly newId: () => string
  /**
   * The list's page queries, however many clients read it (decisions §9): a new list is
   * admitted or refused at its first page; a list already answering is never refused.
   */
  readonly lists: WorkAdmission
}

export class TodoService<Scope extends TodoScope = TodoScope> {
  readonly #repository: TodoRepository
  readonly #unitOfWork: UnitOfWork<Scope>
  readonly #now: () => Date
  readonly #newId: () => string
  readonly #lists: WorkAdmission

  constructor(deps: TodoServiceDeps<Scope>) {
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
  list(pageSize: number = TODO_LIST_PAGE_SIZE, client?: string): AsyncIterable<readonly Todo[]> {
    return new TodoPages(
      (after) =>
        this.#lists.run(() => this.#repository.listAfter(after, pageSize), {
          client,
          continuing: after !== undefined,
        }),
      pageSize,
    )
  }

  async get(todoId: string): Promise<Todo> {
    const todo = await this.#repository.findById(todoId)
    if (!todo) throw new ResourceNotFoundError(TODO, todoId)
    return todo
  }

  /**
   * A new Todo is always open and stamped by the service, whatever the client sent.
   * `alongside` runs in the insert's transaction (both are stored or neither); without
   * it the insert is a single statement, with no transaction around it.
   */
  async create(input: NewTodo, alongside?: Alongside<Todo, Scope>): Promise<Todo> {
    const todo: Todo = {
      todoId: this.#newId(),
      todoTitle: input.todoTitle,
      finished: false,
      createdAt: instantOf(this.#now()),
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
    requirePrecondition(condition, todoVersion(current))
    if (current.finished)
      throw new BusinessRuleError('todo-already-finished' satisfies TodoRule, todoId)
    const finished = await this.#repository.markFinished(todoId)
    if (finished) return finished
    // Lost a race with another finish or a delete: report what happened to it.
    await this.get(todoId)
    throw new BusinessRuleError('todo-already-finished' satisfies TodoRule, todoId)
  }

  async delete(todoId: string, condition?: VersionCondition): Promise<void> {
    if (!condition) {
      if (!(await this.#repository.delete(todoId))) {
        throw new ResourceNotFoundError(TODO, todoId)
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
