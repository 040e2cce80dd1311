/**
 * Fills a database with generated members for benchmarks and query-plan checks, fast
 * (batched multi-row inserts in transactions) and reusable: it only adds what is missing,
 * so a second run on a loaded database returns at once.
 *
 *   npx tsx bench/load-members.ts --members 1000000 [--database-url postgres://...|sqlite:PATH]
 */
import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import { loadConfig } from '../src/config.js'
import { hashPassword } from '../src/infra/crypto/argon2.js'
import { createDatabase, type Database } from '../src/infra/db/create-database.js'

const BATCH = 1000
const STAMP = '2026-01-01T00:00:00.000Z'
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
const SYLLABLES = [
  'ka',
  'mo',
  'ri',
  'ta',
  'na',
  'be',
  'lo',
  'su',
  'de',
  'gi',
  'ha',
  'no',
  'vi',
  'ra',
  'to',
  'mi',
]

/**
 * The first SEARCH_COHORT members are named Benchmark1..100 in every dataset, so a search
 * for `Benchmark` returns the same 100 members at 10,000 and at 1,000,000: the two sizes
 * then compare how the search scales with the table, not with the result.
 */
export const SEARCH_COHORT = 100
export const SEARCH_PREFIX = 'Benchmark'

/** Spreads n over 0..2^32 (a multiplicative hash), so names do not follow insertion order. */
function spread(n: number): number {
  return Math.imul(n, 2654435761) >>> 0
}

/** A deterministic spread of last names: 16^4 distinct stems, capitalised. */
function lastName(n: number): string {
  if (n <= SEARCH_COHORT) return `${SEARCH_PREFIX}${n}`
  let stem = ''
  for (let i = 0, rest = spread(n); i < 4; i += 1, rest = Math.floor(rest / SYLLABLES.length)) {
    stem += SYLLABLES[rest % SYLLABLES.length]
  }
  return stem.charAt(0).toUpperCase() + stem.slice(1)
}

export function memberIdOf(n: number): string {
  return `${ID_PREFIX}${String(n).padStart(9, '0')}`
}

async function countGenerated(database: Database): Promise<number> {
  const { count } = await database.db
    .selectFrom('member')
    .where('member_id', 'like', `${ID_PREFIX}%`)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(count)
}

/** Ensures members 1..total exist; returns how many were added. */
export async function loadMembers(
  database: Database,
  total: number,
  log = console.log,
): Promise<number> {
  const present = await countGenerated(database)
  if (present >= total) return 0
  // One real hash for every generated member: loading must not take hours of argon2.
  const passwordHash = await hashPassword('generated-password')
  const started = Date.now()
  for (let from = present + 1; from <= total; from += BATCH * 10) {
    await database.db.transaction().execute(async (trx) => {
      for (let start = from; start < from + BATCH * 10 && start <= total; start += BATCH) {
        const numbers = Array.from(
          { length: Math.min(BATCH, total - start + 1) },
          (_, i) => start + i,
        )
        await trx
          .insertInto('member')
          .values(
            numbers.map((n) => ({
              member_id: memberIdOf(n),
              first_name: FIRST_NAMES[spread(n + 7) % FIRST_NAMES.length] as string,
              last_name: lastName(n),
              gender_code: String(n % 3),
              date_of_birth: `19${50 + (n % 50)}-0${1 + (n % 9)}-1${n % 10}`,
              email_address: `member${n}@example.com`,
              telephone_number: null,
              zip_code: null,
              address: null,
              created_at: STAMP,
              last_modified_at: STAMP,
              version: 1,
            })),
          )
          .execute()
        await trx
          .insertInto('member_credential')
          .values(
            numbers.map((n) => ({
              member_id: memberIdOf(n),
              sign_id: `member${n}@example.com`,
              password_hash: passwordHash,
              password_last_changed_at: STAMP,
              last_modified_at: STAMP,
            })),
          )
          .execute()
      }
    })
    const done = Math.min(from + BATCH * 10 - 1, total)
    if (done % 100_000 < BATCH * 10)
      log(`  ${done} members (${((Date.now() - started) / 1000).toFixed(1)} s)`)
  }
  if (database.profile.kind === 'postgres') {
    await sql`analyze member`.execute(database.db)
  }
  return total - present
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
  const database = await createDatabase(config.database)
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
