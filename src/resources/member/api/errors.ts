import { resourceAnswers } from '../../../api/errors/catalogue.js'

/** The Member's own error codes: status, when each is answered, and its messages. */
export const MEMBER_ERRORS = resourceAnswers({
  'e.ex.mm.5001': {
    status: 404,
    description: 'No member has this id.',
    exampleArgs: ['qhsGy4neFe'],
    texts: {
      en: 'Specified member not found. member id : {0}',
      ja: '指定された会員が見つかりません。会員ID : {0}',
    },
  },
  'e.ex.mm.8001': {
    status: 409,
    description: 'Another member already uses the sign id.',
    exampleArgs: ['taro.yamada@example.com'],
    texts: {
      en: 'Cannot use specified sign id. sign id : {0}',
      ja: '指定されたサインIDは使用できません。サインID : {0}',
    },
  },
})

export const MEMBER_NOT_FOUND = MEMBER_ERRORS['e.ex.mm.5001']
export const SIGN_ID_IN_USE = MEMBER_ERRORS['e.ex.mm.8001']
