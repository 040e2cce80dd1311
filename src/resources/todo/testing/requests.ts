import fc from 'fast-check'
import type { Template } from '../../../testing/request-steps.js'
import {
  anyValue,
  idRef,
  mutated,
  mutations,
  strings,
  texts,
  timestampValue,
} from '../../../testing/request-values.js'
import {
  itemMethods,
  itemStep,
  post,
  type ResourceRequests,
} from '../../../testing/resource-requests.js'

/**
 * Generated Todo requests for the tests (src/testing/resource-requests.ts): bodies mostly
 * valid, so that creates succeed, with boundary and hostile values; and the Todos every
 * sequence of the differential test starts from.
 */

const VALID_TITLES = ['Buy milk', 'a', '日本語のタイトル', '😀', 'x'.repeat(30), 'Tab\there']
const todoTitle = fc.oneof(
  { weight: 3, arbitrary: strings(...VALID_TITLES) },
  {
    weight: 2,
    arbitrary: anyValue(
      strings(
        'x'.repeat(31),
        '😀'.repeat(15),
        '😀'.repeat(16),
        '😀'.repeat(30),
        '😀'.repeat(31),
        'e\u0301'.repeat(15),
        'e\u0301'.repeat(16),
        ' ',
        `${'x'.repeat(29)}\u0000`,
      ),
    ),
  },
)

/** POST /api/v1/todos bodies: a title, or a Todo posted back; 1 or 2 fields changed. */
export const todoBody: fc.Arbitrary<Template> = fc
  .tuple(
    fc.constantFrom(...VALID_TITLES),
    fc.option(idRef('todo')),
    mutations(
      {
        todoTitle,
        todoId: fc.oneof(
          idRef('todo').map((ref): Template => [ref]),
          anyValue(strings('00000000-0000-7000-8000-000000000000')),
        ),
        finished: fc.oneof(texts(['true'], ['false']), anyValue(strings('yes', 'true'))),
        createdAt: timestampValue,
      },
      ['extra', 'todoid', 'links', '__proto__'],
    ),
  )
  .map(([title, postedBack, changes]) =>
    mutated(
      [
        ['todoId', postedBack === null ? undefined : [postedBack]],
        ['todoTitle', [JSON.stringify(title)]],
        ['finished', postedBack === null ? undefined : ['false']],
        ['createdAt', postedBack === null ? undefined : ['"2020-01-01T00:00:00.000Z"']],
      ],
      changes,
    ),
  )

export const requests: ResourceRequests = {
  kind: 'todo',
  collection: 'todos',
  idField: 'todoId',
  unknownId: '00000000-0000-7000-8000-000000000001',
  tables: ['todo'],
  seeds: ['Buy milk', 'Write tests', '日本語のタイトル'].map((todoTitle) => ({ todoTitle })),
  // The newest seed finished: sequences meet both states.
  seedChanges: (pathOf) => [{ method: 'PUT', path: pathOf(0) }],
  steps: [
    { weight: 4, arbitrary: post('todos', todoBody) },
    { weight: 4, arbitrary: itemStep('todos', 'todo', itemMethods) },
  ],
  validCreates: { weight: 1, arbitrary: post('todos', todoBody) },
}
