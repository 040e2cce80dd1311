import type { PoolerMode } from './postgres/postgres.js'

export type { PoolerMode } from './postgres/postgres.js'

/** Which database the service opens, as config/settings.ts reads it from the environment. */
export type DatabaseConfig =
  | { readonly kind: 'sqlite'; readonly file: string }
  | {
      readonly kind: 'postgres'
      readonly url: string
      readonly poolMax: number
      readonly pooler: PoolerMode
      /** DB_PREPARED_STATEMENTS=on or off; absent (auto): on unless `pooler` is transaction. */
      readonly namedStatements?: boolean
      /** A streaming replica for member search and the todo list (DATABASE_READ_URL). */
      readonly readUrl?: string
    }
