import { Type } from 'typebox'

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
    description: `property[,asc|desc], repeatable. Properties: ${properties.join(', ')}.`,
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
