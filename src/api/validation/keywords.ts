import type { Ajv } from 'ajv'
import ajvFormats from 'ajv-formats'
import { fullFormats } from 'ajv-formats/dist/formats.js'
import { CODE_LISTS } from '../../domain/common/code-lists.js'

/**
 * The contract's constraints as Ajv keywords, with Bean Validation semantics:
 * `null` passes everything but NotNull/NotEmpty, and `""` passes Email, Past and
 * Size with min 0. Standard keywords cover the rest (minLength/maxLength = Size,
 * minimum = Min, maximum = Max, format "email" = Email).
 */
export const KEYWORD = {
  notNull: 'x-not-null',
  notEmpty: 'x-not-empty',
  mustBeNull: 'x-null',
  past: 'x-past',
  codeList: 'x-code-list',
  /** Each item of a `property[,direction]` list names another property (a repeated sort). */
  uniqueProperties: 'x-unique-properties',
  /** Binding rule, not a constraint: text without NUL characters or lone surrogates. */
  wellFormed: 'x-well-formed',
} as const

const isBlankish = (data: unknown) => data === null || data === ''

function todayUtc(): string {
  return new Date().toISOString().slice(0, 10)
}

function isPast(value: string): boolean {
  // A date (yyyy-MM-dd) is past when before today's UTC date; a date-time when before now.
  return value.length === 10 ? value < todayUtc() : Date.parse(value) < Date.now()
}

const email = fullFormats.email as RegExp
const calendarDay = (fullFormats.date as { validate: (value: string) => boolean }).validate

/**
 * yyyy-MM-dd, a real calendar day in the years 0001 to 9999 (decisions §1): year 0000
 * is no year of the calendar, and PostgreSQL's date type refuses it.
 */
export const DATE_RULE = 'yyyy-MM-dd: a real calendar day in the years 0001 to 9999.'
function isDate(value: string): boolean {
  return calendarDay(value) && !value.startsWith('0000')
}

export function addContractKeywords(ajv: Ajv): Ajv {
  // ajv-formats is CommonJS: its plugin function is the module's default export.
  ajvFormats.default(ajv, ['date-time'])
  ajv.addFormat('date', { type: 'string', validate: isDate })
  ajv.addFormat('email', {
    type: 'string',
    validate: (value: string) => value === '' || email.test(value),
  })

  ajv.addKeyword({
    keyword: KEYWORD.notNull,
    errors: false,
    validate: (_: unknown, data: unknown) => data !== null,
  })
  ajv.addKeyword({
    keyword: KEYWORD.notEmpty,
    errors: false,
    validate: (_: unknown, data: unknown) => !isBlankish(data),
  })
  ajv.addKeyword({
    keyword: KEYWORD.mustBeNull,
    errors: false,
    validate: (_: unknown, data: unknown) => data === null,
  })
  ajv.addKeyword({
    keyword: KEYWORD.past,
    type: 'string',
    errors: false,
    validate: (_: unknown, data: string) => data === '' || isPast(data),
  })
  ajv.addKeyword({
    keyword: KEYWORD.codeList,
    type: 'string',
    schemaType: 'string',
    errors: false,
    validate: (codeListId: string, data: string) =>
      data === '' || CODE_LISTS[codeListId]?.has(data) === true,
  })
  ajv.addKeyword({
    keyword: KEYWORD.uniqueProperties,
    type: 'array',
    errors: false,
    validate: (_: unknown, data: unknown[]) => {
      const properties = data.map((item) => String(item).split(',', 1)[0])
      return new Set(properties).size === properties.length
    },
  })
  ajv.addKeyword({
    keyword: KEYWORD.wellFormed,
    type: 'string',
    errors: false,
    validate: (_: unknown, data: string) => !data.includes('\u0000') && data.isWellFormed(),
  })
  return ajv
}
