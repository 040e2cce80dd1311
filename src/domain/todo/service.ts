import {
  BusinessRuleError,
  PreconditionFailedError,
  ResourceNotFoundError,
} from '../common/errors.js'
import { type VersionCondition, writeWhilePreconditionHolds } from '../common/version.js'
import { type NewTodo, type Todo, todoVersion } from './model.js'
import type { TodoRepository } from './repository.js'

export const TODO_NOT_FOUND = 'e.ex.td.5001'
export const TODO_ALREADY_FINISHED = 'e.ex.td.8001'

export interface TodoServiceDeps {
  readonly repository: TodoRepository
  readonly now: () => Date
  readonly newId: () => string
}

export class TodoService {
  readonly #repository: TodoRepository
  readonly #now: () => Date
  readonly #newId: () => string

  constructor(deps: TodoServiceDeps) {
    this.#repository = deps.repository
    this.#now = deps.now
    this.#newId = deps.newId
  }

  list(): Promise<Todo[]> {
    return this.#repository.findAll()
  }

  async get(todoId: string): Promise<Todo> {
    const todo = await this.#repository.findById(todoId)
    if (!todo) throw new ResourceNotFoundError(TODO_NOT_FOUND, [todoId])
    return todo
  }

  /** A new Todo is always open and stamped by the service, whatever the client sent. */
  async create(input: NewTodo): Promise<Todo> {
    const todo: Todo = {
      todoId: this.#newId(),
      todoTitle: input.todoTitle,
      finished: false,
      createdAt: this.#now(),
    }
    await this.#repository.insert(todo)
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

function checkVersion(todo: Todo, condition: VersionCondition | undefined): void {
  if (condition && !condition.matches(todoVersion(todo))) throw new PreconditionFailedError()
}
