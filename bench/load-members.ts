/**
 * Fills a database with generated members for benchmarks, query-plan checks and the
 * bounded-work chaos test: the database generates them itself, with one INSERT … SELECT
 * per table (seconds for a million, where inserting them from here took minutes), and
 * only what is missing, so a second run on a loaded database returns at once.
 *
 *   npx tsx bench/load-members.ts --members 1000000 [--database-url postgres://...|sqlite:PATH]
 *
 * Member n is the same on every database and every run: id `G` + n in 9 digits, a first
 * name from 49 common ones, a last name of four syllables (16^4 stems, so one-letter
 * prefixes match 6 to 20% of the table), a birthday in 1950-1999, created over six years
 * at distinct instants and modified up to 30 days later.
 */
import { parseArgs } from 'node:util'
import { type RawBuilder, sql } from 'kysely'
import { loadConfig } from '../src/config/settings.js'
import { hashPassword } from '../src/infra/crypto/argon2.js'
import { createDatabase, type Database } from '../src/infra/db/create-database.js'
import { MIGRATIONS } from '../src/resources/index.js'

/** Generated ids are 'G' + 9 digits: valid member ids, apart from the random ones the service draws. */
const ID_PREFIX = 'G'

const FIRST_NAMES = [
  'James',
  'Mary',
  'John',
  'Patricia',
  'Robert',
  'Jennifer',
  'Michael',
  'Linda',
  'William',
  'Elizabeth',
  'David',
  'Barbara',
  'Richard',
  'Susan',
  'Joseph',
  'Jessica',
  'Thomas',
  'Sarah',
  'Charles',
  'Karen',
  'Hiroshi',
  'Yuki',
  'Takeshi',
  'Aiko',
  'Kenji',
  'Sakura',
  'Haruto',
  'Yui',
  'Sota',
  'Hina',
  'Pierre',
  'Marie',
  'Hans',
  'Greta',
  'Luca',
  'Giulia',
  'Carlos',
  'Sofia',
  'Olivia',
  'Noah',
  'Emma',
  'Liam',
  'Ava',
  'Mateo',
  'Chloe',
  'Ethan',
  'Zoe',
  'Isaac',
  'Nina',
]
/** Two letters each: a last name is four of them, the first capitalised. */
const SYLLABLES = 'kamoritanabelosudegihanoviratomi'

/**
 * The first SEARCH_COHORT members are named Benchmark1..100 in every dataset, so a search
 * for `Benchmark` returns the same 100 members at 10,000 and at 1,000,000: the two sizes
 * then compare how the search scales with the table, not with the result.
 */
export const SEARCH_COHORT = 100
export const SEARCH_PREFIX = 'Benchmark'

/** Created from 2020-01-01 on, one every 189 s and some milliseconds: six years for a million. */
const CREATED_FROM = '2020-01-01 00:00:00'
const CREATED_EVERY_S = 189

export function memberIdOf(n: number): string {
  return `${ID_PREFIX}${String(n).padStart(9, '0')}`
}

/** How each database writes the few expressions that differ; the rest of the SQL is shared. */
interface Generator {
  /** Rows n = from..to, one column `n`. */
  numbers(from: number, to: number): string
  memberId: string
  /** An ISO time stamp `seconds` after CREATED_FROM, plus `millis` milliseconds. */
  instant(seconds: string, millis: string): string
  /** Text of a whole number. */
  text(expression: string): string
  /** A yyyy-MM-dd text as the column's date. */
  date(expression: string): string
}

const GENERATORS: Record<'sqlite' | 'postgres', Generator> = {
  sqlite: {
    numbers: (from, to) =>
      `with recursive numbers(n) as (select ${from} union all select n + 1 from numbers where n < ${to})`,
    memberId: `printf('${ID_PREFIX}%09d', n)`,
    instant: (seconds, millis) =>
      `strftime('%Y-%m-%dT%H:%M:%fZ', '${CREATED_FROM}', '+' || (${seconds}) || ' seconds', '+' || ((${millis}) / 1000.0) || ' seconds')`,
    text: (expression) => `cast(${expression} as text)`,
    date: (expression) => expression,
  },
  postgres: {
    numbers: (from, to) => `with numbers(n) as (select generate_series(${from}, ${to})::bigint)`,
    memberId: `'${ID_PREFIX}' || lpad(n::text, 9, '0')`,
    instant: (seconds, millis) =>
      `timestamptz '${CREATED_FROM}+00' + (${seconds}) * interval '1 second' + (${millis}) * interval '1 millisecond'`,
    text: (expression) => `(${expression})::text`,
    date: (expression) => `cast(${expression} as date)`,
  },
}

/** A multiplicative hash of n over 0..2^32, so names do not follow insertion order. */
const spread = (n: string) => `((${n}) * 2654435761 % 4294967296)`

/** One syllable of the stem: digit `place` of spread(n) in base 16. */
const syllable = (place: number) =>
  `substr(cast('${SYLLABLES}' as text), cast(2 * (${spread('n')} / ${16 ** place} % 16) + 1 as integer), 2)`

function memberInsert(g: Generator, from: number, to: number): RawBuilder<unknown> {
  const names = FIRST_NAMES.map((name, index) => `(${index}, '${name}')`).join(', ')
  const stem = [0, 1, 2, 3].map(syllable).join(' || ')
  return sql.raw(`${g.numbers(from, to)}, first_names(i, name) as (values ${names})
    insert into member (member_id, first_name, last_name, gender_code, date_of_birth,
      email_address, telephone_number, zip_code, address, created_at, last_modified_at, version)
    select ${g.memberId}, f.name,
      case when n <= ${SEARCH_COHORT} then '${SEARCH_PREFIX}' || ${g.text('n')}
           else upper(substr(${stem}, 1, 1)) || substr(${stem}, 2) end,
      ${g.text('n % 3')},
      ${g.date(`'19' || ${g.text('50 + n % 50')} || '-0' || ${g.text('1 + n % 9')} || '-1' || ${g.text('n % 10')}`)},
      'member' || ${g.text('n')} || '@example.com', null, null, null,
      ${g.instant(`n * ${CREATED_EVERY_S}`, `${spread('n')} % 1000`)},
      ${g.instant(`n * ${CREATED_EVERY_S} + ${spread('n + 3')} % 2592000`, `${spread('n')} % 1000`)},
      1
    from numbers join first_names f on f.i = ${spread('n + 7')} % ${FIRST_NAMES.length}`)
}

function credentialInsert(g: Generator, from: number, to: number, hash: string) {
  return sql.raw(`${g.numbers(from, to)}
    insert into member_credential (member_id, sign_id, password_hash, password_last_changed_at, last_modified_at)
    select ${g.memberId}, 'member' || ${g.text('n')} || '@example.com', '${hash}',
      ${g.instant(`n * ${CREATED_EVERY_S}`, `${spread('n')} % 1000`)},
      ${g.instant(`n * ${CREATED_EVERY_S}`, `${spread('n')} % 1000`)}
    from numbers`)
}

/**
 * How many of members 1..total exist. They are made in order, so the highest present
 * says; it is found by exact ids, because a member posted by a run of the bench has a
 * random id that may begin with the same letter.
 */
async function present(database: Database, total: number): Promise<number> {
  const exists = async (n: number) =>
    (await database.db
      .selectFrom('member')
      .select('member_id')
      .where('member_id', '=', memberIdOf(n))
      .executeTakeFirst()) !== undefined
  let [low, high] = [0, total] // members 1..low exist; member high + 1 does not
  while (low < high) {
    const middle = Math.ceil((low + high) / 2)
    if (await exists(middle)) low = middle
    else high = middle - 1
  }
  return low
}

/** Statements that generate a million rows take a minute, far past the service's DB_TIMEOUT. */
export const LOADING_TIMEOUT_MS = 10 * 60_000

/**
 * Ensures members 1..total exist; returns how many were added. The database must be
 * opened with a statement timeout of LOADING_TIMEOUT_MS.
 */
export async function loadMembers(
  database: Database,
  total: number,
  log = console.log,
): Promise<number> {
  const first = (await present(database, total)) + 1
  if (first > total) return 0
  // One real hash for every generated member: loading must not take hours of argon2.
  const hash = await hashPassword('generated-password')
  const generator = GENERATORS[database.engine.kind]
  const started = Date.now()
  await database.db.transaction().execute(async (trx) => {
    await memberInsert(generator, first, total).execute(trx)
    await credentialInsert(generator, first, total, hash).execute(trx)
  })
  log(`  ${total - first + 1} members generated in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  // PostgreSQL: fresh statistics for the planner, and the visibility map that lets index
  // scans skip the table, as autovacuum would make them a little later.
  if (database.engine.kind === 'postgres') {
    await sql`vacuum analyze member`.execute(database.db)
    await sql`vacuum analyze member_credential`.execute(database.db)
  }
  return total - first + 1
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      members: { type: 'string', default: '1000000' },
      'database-url': { type: 'string' },
    },
  })
  const url = values['database-url'] ?? process.env.DATABASE_URL ?? ''
  const config = loadConfig({ DATABASE_URL: url })
  const total = Number(values.members)
  const database = await createDatabase(config.database, {
    migrations: MIGRATIONS,
    timeoutMs: LOADING_TIMEOUT_MS,
  })
  try {
    const started = Date.now()
    const added = await loadMembers(database, total)
    console.log(
      `${total} members present (${added} added in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    )
  } finally {
    await database.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
