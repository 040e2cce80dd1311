import { Type } from 'typebox'
import { flag, text } from '../../../api/schemas/fields.js'

/** A Todo as the API shows it. */
export const TodoResource = Type.Object(
  {
    todoId: Type.String({ description: 'Assigned by the service (a UUID).' }),
    todoTitle: Type.String({ minLength: 1, maxLength: 30 }),
    finished: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time', description: 'UTC, with milliseconds.' }),
  },
  {
    title: 'Todo',
    additionalProperties: false,
    examples: [
      {
        todoId: '01a20114-a9e4-73d1-b63d-c583549b3710',
        todoTitle: 'Buy milk',
        finished: false,
        createdAt: '2026-11-22T09:15:02.123Z',
      },
    ],
  },
)

/**
 * POST body. A client may post back a Todo it received: `todoId`, `finished` and
 * `createdAt` are type-checked but ignored (a new Todo is open and stamped by the service).
 */
export const TodoCreateBody = Type.Object(
  {
    todoId: text({ description: 'Ignored; the service assigns the id.' }),
    todoTitle: text({ notNull: true, size: [1, 30] }),
    finished: flag('Ignored; a new Todo is always unfinished.'),
    createdAt: text({ format: 'date-time', description: 'Ignored; the service stamps it.' }),
  },
  { title: 'TodoCreate', additionalProperties: false, examples: [{ todoTitle: 'Buy milk' }] },
)

export const TodoPath = Type.Object({ todoId: Type.String() }, { additionalProperties: false })

/** The schemas the OpenAPI document names: Todo and TodoCreate. */
export function todoComponents() {
  return [TodoResource, TodoCreateBody]
}
