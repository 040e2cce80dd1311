/**
 * The few real differences between SQLite and PostgreSQL that code outside this
 * file must know about. Everything else is written once for both.
 */
export interface DialectProfile {
  readonly kind: 'sqlite' | 'postgres'
  /** Column type for a UTC instant with millisecond precision. */
  readonly timestampType: 'text' | 'timestamptz(3)'
  /** Does this driver error report a unique (or primary key) violation? */
  isUniqueViolation(error: unknown): boolean
}

function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null
    ? (error as { code?: unknown }).code
    : undefined
}

export const SQLITE: DialectProfile = {
  kind: 'sqlite',
  timestampType: 'text',
  isUniqueViolation: (error) => {
    const code = errorCode(error)
    return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  },
}

export const POSTGRES: DialectProfile = {
  kind: 'postgres',
  timestampType: 'timestamptz(3)',
  isUniqueViolation: (error) => errorCode(error) === '23505',
}

export function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value)
}

export function toBoolean(value: boolean | number): boolean {
  return value === true || value === 1
}
