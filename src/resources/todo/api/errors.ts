import { resourceAnswers } from '../../../api/errors/catalogue.js'

/** The Todo's own error codes: status, when each is answered, and its messages. */
export const TODO_ERRORS = resourceAnswers({
  'e.ex.td.5001': {
    status: 404,
    description: 'No Todo has this id.',
    exampleArgs: ['01a20114-a9e4-73d1-b63d-c583549b3710'],
    texts: {
      en: 'Specified todo not found. todo id : {0}',
      ja: '指定されたTodoが見つかりません。Todo ID : {0}',
    },
  },
  'e.ex.td.8001': {
    status: 409,
    description: 'The Todo is finished already.',
    exampleArgs: ['01a20114-a9e4-73d1-b63d-c583549b3710'],
    texts: {
      en: 'Specified todo is already finished. todo id : {0}',
      ja: '指定されたTodoは既に完了しています。Todo ID : {0}',
    },
  },
})

export const TODO_NOT_FOUND = TODO_ERRORS['e.ex.td.5001']
export const TODO_ALREADY_FINISHED = TODO_ERRORS['e.ex.td.8001']
