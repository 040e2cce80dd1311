import { sql } from 'kysely'
import { type EngineTraits, errorField } from '../engine/traits.js'

export const SQLITE: EngineTraits = {
  kind: 'sqlite',
  timestampType: 'text',
  dateType: 'text',
  instant: (column) => sql.ref<string>(column),
  insertsInWith: false,
  text: (maxLength) => sql.raw(`varchar(${maxLength})`),
  uniqueViolationColumns: (error) => {
    const code = errorField(error, 'code')
    if (code !== 'SQLITE_CONSTRAINT_UNIQUE' && code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') return []
    // "UNIQUE constraint failed: member_credential.sign_id"
    const columns = errorField(error, 'message')?.split('failed: ')[1] ?? ''
    return columns.split(', ').map((column) => column.split('.').pop() ?? column)
  },
  // The reader threads' own error (readers.ts).
  isCancellation: (error) => errorField(error, 'code') === 'READ_TIMEOUT',
  indexWalk: { filterColumn: (column) => sql<string>`+${column}`, setup: undefined },
}
