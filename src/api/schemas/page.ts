import { type TSchema, Type } from 'typebox'
import type { PageFormat } from '../../config/settings.js'
import type { RequestedOrder } from './sort.js'

/**
 * The search page (spec: Page, Sort). The legacy format of older releases names
 * `first`/`last` as `firstPage`/`lastPage` and has no `nullHandling`.
 */
export function pageSchema(item: TSchema, format: PageFormat, title: string) {
  const legacy = format === 'legacy'
  const sortSchema = Type.Object(
    {
      direction: Type.String(),
      property: Type.String(),
      ignoreCase: Type.Boolean(),
      ...(legacy ? {} : { nullHandling: Type.String() }),
      ascending: Type.Boolean(),
    },
    { title: 'Sort', additionalProperties: false },
  )
  return Type.Object(
    {
      content: Type.Array(item),
      sort: Type.Unsafe<unknown[] | null>({ type: ['array', 'null'], items: sortSchema }),
      [legacy ? 'firstPage' : 'first']: Type.Boolean(),
      [legacy ? 'lastPage' : 'last']: Type.Boolean(),
      totalPages: Type.Integer(),
      totalElements: Type.Integer(),
      size: Type.Integer(),
      number: Type.Integer(),
      numberOfElements: Type.Integer(),
    },
    { title, additionalProperties: false },
  )
}

export interface PageInput<T> {
  readonly content: readonly T[]
  readonly page: number
  readonly size: number
  readonly total: number
  /** The orders the client asked for; none means `sort: null`. */
  readonly sort: readonly RequestedOrder<string>[]
}

/** A page body; its keys depend on the format, so its type is as loose as pageSchema's. */
export type PageBody = Record<string, number | boolean | unknown[] | null>

export function toPage<T>(input: PageInput<T>, format: PageFormat): PageBody {
  const legacy = format === 'legacy'
  const totalPages = Math.ceil(input.total / input.size)
  const sort =
    input.sort.length === 0
      ? null
      : input.sort.map((order) => ({
          direction: order.direction,
          property: order.property,
          ignoreCase: false,
          ...(legacy ? {} : { nullHandling: 'NATIVE' }),
          ascending: order.direction === 'ASC',
        }))
  return {
    content: [...input.content],
    sort,
    [legacy ? 'firstPage' : 'first']: input.page === 0,
    [legacy ? 'lastPage' : 'last']: input.page >= totalPages - 1,
    totalPages,
    totalElements: input.total,
    size: input.size,
    number: input.page,
    numberOfElements: input.content.length,
  }
}
