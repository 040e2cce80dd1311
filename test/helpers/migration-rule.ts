import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely'
import type { EngineTraits } from '../../src/infra/db/engine/traits.js'
import { indexChanges } from '../../src/infra/db/index-changes.js'
import type { MigrationFactory, Migrations, ServiceMigration } from '../../src/infra/db/migrate.js'

/**
 * The migration rule of src/infra/db/migrate.ts (expand, then contract), checked on the
 * statements each migration sends: every migration is run against a connection that
 * records its SQL and answers nothing, so no database is needed and every engine's SQL
 * is seen as it would be sent.
 */

export interface Finding {
  readonly migration: string
  readonly statement: string
  readonly why: string
}

export interface RuleReport {
  /** What a release before would break on, in a migration that is no contract step. */
  readonly violations: readonly Finding[]
  /** What takes away but is allowed: an index drop, or a declared contract step. */
  readonly allowed: readonly Finding[]
}

/** Records each statement; answers a catalogue query about the schema as a fresh one would. */
class RecordingConnection implements DatabaseConnection {
  constructor(private readonly statements: string[]) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    this.statements.push(query.sql)
    const rows = /current_schema\(\)/i.test(query.sql) ? [{ schema: 'public' }] : []
    return { rows: rows as R[] }
  }

  // biome-ignore lint/correctness/useYield: no migration streams; one that did is a finding.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('a migration streamed a query')
  }
}

function recordingDatabase(engine: EngineTraits, statements: string[]): Kysely<unknown> {
  const connection = new RecordingConnection(statements)
  const driver: Driver = {
    init: async () => undefined,
    acquireConnection: async () => connection,
    beginTransaction: async () => undefined,
    commitTransaction: async () => undefined,
    rollbackTransaction: async () => undefined,
    releaseConnection: async () => undefined,
    destroy: async () => undefined,
  }
  const postgres = engine.kind === 'postgres'
  return new Kysely<unknown>({
    dialect: {
      createAdapter: () => (postgres ? new PostgresAdapter() : new SqliteAdapter()),
      createDriver: () => driver,
      createIntrospector: (db) =>
        postgres ? new PostgresIntrospector(db) : new SqliteIntrospector(db),
      createQueryCompiler: () =>
        postgres ? new PostgresQueryCompiler() : new SqliteQueryCompiler(),
    },
  })
}

/** The statements a migration sends on `engine`, lower case, unquoted, one space apart. */
export async function statementsOf(
  migration: ServiceMigration,
  engine: EngineTraits,
): Promise<string[]> {
  const statements: string[] = []
  await migration.up(recordingDatabase(engine, statements))
  return statements.map((sql) => sql.replaceAll('"', '').replace(/\s+/g, ' ').trim().toLowerCase())
}

/** A table or index name without its schema. */
const bare = (name: string) => name.split('.').at(-1) as string

/** Why `statement` takes away from a table the release before knows; undefined if it does not. */
function takesAway(statement: string, createdHere: ReadonlySet<string>): string | undefined {
  const dropped = /^drop (table|view|materialized view|type|schema|sequence|function)\b/.exec(
    statement,
  )
  if (dropped) return `drops a ${dropped[1]}`
  if (/^(truncate|delete from)\b/.test(statement)) return 'removes rows'
  const unique = /^create unique index (?:concurrently )?(?:if not exists )?\S+ on (\S+)/.exec(
    statement,
  )
  if (unique && !createdHere.has(bare(unique[1] as string))) {
    return 'adds a unique index to a table whose rows the release before writes'
  }
  const altered = /^alter table (?:if exists )?(\S+) (.*)$/.exec(statement)
  if (!altered || createdHere.has(bare(altered[1] as string))) return undefined
  const change = altered[2] as string
  if (/\brename\b/.test(change)) return 'renames'
  if (/\bdrop column\b/.test(change)) return 'drops a column'
  if (/\bdrop constraint\b/.test(change)) return 'drops a constraint'
  if (/\balter column \S+ (set data )?type\b/.test(change)) return "changes a column's type"
  if (/\bset not null\b/.test(change)) return 'makes a column NOT NULL'
  if (/\bdrop default\b/.test(change)) return "drops a column's default"
  if (/\badd constraint\b/.test(change)) return 'adds a constraint'
  if (/\badd column\b.*\bnot null\b/.test(change) && !/\bdefault\b/.test(change)) {
    return 'adds a NOT NULL column without a default, which inserts of the release before lack'
  }
  return undefined
}

/** Checks every migration of `migrations`, in name order, on one engine. */
export async function checkMigrationRule(
  migrations: Migrations,
  engine: EngineTraits,
): Promise<RuleReport> {
  const violations: Finding[] = []
  const allowed: Finding[] = []
  const uniqueIndexes = new Set<string>()
  const names = Object.keys(migrations).sort()
  for (const migration of names) {
    const built = (migrations[migration] as (engine: EngineTraits) => ServiceMigration)(engine)
    const { contracts } = built
    if (contracts !== undefined && !(names.includes(contracts) && contracts < migration)) {
      const why = `says it contracts ${contracts}, which is no earlier migration`
      violations.push({ migration, statement: '', why })
    }
    const createdHere = new Set<string>()
    for (const statement of await statementsOf(built, engine)) {
      const table = /^create table (?:if not exists )?(\S+)/.exec(statement)
      if (table) createdHere.add(bare(table[1] as string))
      const unique = /^create unique index (?:concurrently )?(?:if not exists )?(\S+)/.exec(
        statement,
      )
      if (unique) uniqueIndexes.add(bare(unique[1] as string))
      const dropIndex = /^drop index (?:concurrently )?(?:if exists )?(\S+)/.exec(statement)
      let why = takesAway(statement, createdHere)
      if (dropIndex && uniqueIndexes.has(bare(dropIndex[1] as string))) {
        why = 'drops a unique index, a rule the writes of the release before rely on'
      } else if (dropIndex) {
        const note = 'drops an index: the release before runs its queries without it, only slower'
        allowed.push({ migration, statement, why: note })
      }
      if (why === undefined) continue
      if (contracts === undefined) violations.push({ migration, statement, why })
      else
        allowed.push({ migration, statement, why: `${why}, as the contract step of ${contracts}` })
    }
  }
  return { violations, allowed }
}

/**
 * What a next release may add, as an example both of the rule's check and of a rolling
 * upgrade: a table with a unique index of its own, a nullable column, a column with a
 * default; then, in a migration of its own, an index.
 */
export const EXPAND_EXAMPLE: MigrationFactory = () => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('member_note')
      .addColumn('member_id', 'varchar(10)', (column) => column.notNull())
      .addColumn('note', 'text')
      .execute()
    await db.schema
      .createIndex('member_note_uq')
      .on('member_note')
      .column('member_id')
      .unique()
      .execute()
    await db.schema.alterTable('member').addColumn('nickname', 'varchar(64)').execute()
    await db.schema
      .alterTable('todo')
      .addColumn('priority', 'integer', (column) => column.notNull().defaultTo(0))
      .execute()
    await db.schema.alterTable('idempotency_key').addColumn('client', 'text').execute()
  },
})

export const EXPAND_INDEX_EXAMPLE: MigrationFactory = (engine) =>
  indexChanges(engine, {
    table: 'member',
    create: [{ name: 'member_nickname_idx', columns: ['nickname', 'member_id'] }],
    drop: [],
  })
