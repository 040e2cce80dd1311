import { Type } from 'typebox'
import { KEYWORD } from '../validation/keywords.js'

export interface RequestedOrder<P extends string> {
  readonly property: P
  readonly direction: 'ASC' | 'DESC'
}

/**
 * The `sort` query parameter, Spring Data style: repeatable `property[,asc|desc]`,
 * direction in any letter case, ascending by default. The pattern lists the sortable
 * properties, so an unknown one is a 7002 `Pattern` detail.
 */
export function sortParameter(properties: readonly string[]) {
  const direction = ',([aA][sS][cC]|[dD][eE][sS][cC])'
  return Type.Array(Type.String({ pattern: `^(${properties.join('|')})(${direction})?$` }), {
    default: [],
    // Each property at most once: also bounds the ORDER BY a client can ask for.
    [KEYWORD.uniqueProperties]: true,
    description: `property[,asc|desc], repeatable, each property at most once. Properties: ${properties.join(', ')}.`,
  })
}

/** Parses values that passed sortParameter's pattern. */
export function parseSort<P extends string>(values: readonly string[]): RequestedOrder<P>[] {
  return values.map((value) => {
    const [property, direction = 'asc'] = value.split(',')
    return {
      property: property as P,
      direction: direction.toUpperCase() === 'DESC' ? 'DESC' : 'ASC',
    }
  })
}
