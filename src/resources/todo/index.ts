import { v7 as uuidv7 } from 'uuid'
import type { ErrorAnswer } from '../../api/errors/catalogue.js'
import type { ResourceModule } from '../../platform/resource-module.js'
import { TODO_ALREADY_FINISHED, TODO_ERRORS, TODO_NOT_FOUND } from './api/errors.js'
import { TODO_TAG, todoRoutes } from './api/routes.js'
import { todoComponents } from './api/schemas.js'
import { TODO, type TodoRule } from './domain/model.js'
import { type TodoScope, TodoService } from './domain/service.js'
import { createTodo } from './infra/migrations/0001-create-todo.js'
import { KyselyTodoRepository } from './infra/todo-repository.js'

/** Todos: tasks with a title and a finished flag, at /api/v1/todos. */
export const todoResource = {
  name: TODO,
  tag: TODO_TAG,
  scopes: {
    'todos:read': 'Read Todos: the list and one by id.',
    'todos:write': 'Create, finish and delete Todos.',
  },
  errors: {
    answers: TODO_ERRORS,
    notFound: TODO_NOT_FOUND,
    rules: { 'todo-already-finished': TODO_ALREADY_FINISHED } satisfies Record<
      TodoRule,
      ErrorAnswer
    >,
  },
  migrations: { '0001-create-todo': createTodo },
  schemas: () => todoComponents(),
  async install(api, { database, work, now, unitOfWork }) {
    const repository = new KyselyTodoRepository(database)
    const service = new TodoService({
      repository,
      unitOfWork: unitOfWork<TodoScope>({ todos: repository }),
      now,
      newId: uuidv7,
      lists: work.todoLists,
    })
    await api.register(todoRoutes, { service })
  },
} as const satisfies ResourceModule
