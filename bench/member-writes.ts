/**
 * A steady write load on `member`, for measuring what a migration does to writes
 * (bench/migration-under-writes.ts, test/storage/online-indexes.test.ts): each writer is
 * a connection of its own that updates a generated member (bench/load-members.ts) and
 * inserts a new one, one statement after another, and times each. A write that a
 * migration holds off waits, and its time says for how long.
 */
import pg from 'pg'
import { memberIdOf } from './load-members.js'

export interface TimedWrite {
  /** When it was sent, in performance.now() milliseconds. */
  readonly startMs: number
  readonly ms: number
}

export interface MemberWrites {
  /** Stops after the writes in flight; every write timed, in the order sent per writer. */
  stop(): Promise<TimedWrite[]>
}

export interface MemberWritesOptions {
  /** A PostgreSQL URL whose search_path names the schema of the members. */
  readonly url: string
  /** Members 1..members exist (load-members.ts); updates pick among them. */
  readonly members: number
  readonly writers: number
  /** Each writer stops after this many writes, stopped or not: a bounded loop. */
  readonly maxWrites: number
}

const UPDATE = `update member set last_modified_at = now(), version = version + 1
  where member_id = $1`
const INSERT = `insert into member (member_id, first_name, last_name, gender_code,
    date_of_birth, email_address, created_at, last_modified_at, version)
  values ($1, 'Writer', $2, '0', '1990-01-01', $3, now(), now(), 1)`

/** An id no generated member has ('W', the writer, its count); unique per run by `run`. */
const insertedId = (run: string, writer: number, n: number) =>
  `W${run}${writer}${String(n).padStart(6, '0')}`

export async function startMemberWrites(options: MemberWritesOptions): Promise<MemberWrites> {
  const run = String(Date.now() % 100)
  let stopping = false
  const clients = await Promise.all(
    Array.from({ length: options.writers }, async () => {
      const client = new pg.Client({ connectionString: options.url })
      await client.connect()
      return client
    }),
  )
  const loops = clients.map(async (client, writer) => {
    const timed: TimedWrite[] = []
    for (let n = 0; n < options.maxWrites && !stopping; n += 1) {
      const startMs = performance.now()
      if (n % 2 === 0) {
        const member = 1 + Math.floor(Math.random() * options.members)
        await client.query(UPDATE, [memberIdOf(member)])
      } else {
        const id = insertedId(run, writer, n)
        await client.query(INSERT, [id, `Writer${id}`, `${id}@example.com`])
      }
      timed.push({ startMs, ms: performance.now() - startMs })
    }
    return timed
  })
  return {
    stop: async () => {
      stopping = true
      try {
        return (await Promise.all(loops)).flat().sort((a, b) => a.startMs - b.startMs)
      } finally {
        await Promise.all(clients.map((client) => client.end()))
      }
    },
  }
}

export interface WritesDuring {
  /** Writes that were in flight at some moment of the interval. */
  readonly writes: number
  /** Writes sent and answered within the interval. */
  readonly completedInside: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly maxMs: number
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted.length === 0
    ? 0
    : (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0)

/** The writes of an interval (a migration's, in performance.now() milliseconds) and their times. */
export function writesDuring(
  writes: readonly TimedWrite[],
  fromMs: number,
  toMs: number,
): WritesDuring {
  const inFlight = writes.filter(({ startMs, ms }) => startMs < toMs && startMs + ms > fromMs)
  const times = inFlight.map(({ ms }) => ms).sort((a, b) => a - b)
  return {
    writes: inFlight.length,
    completedInside: inFlight.filter(({ startMs, ms }) => startMs >= fromMs && startMs + ms <= toMs)
      .length,
    p50Ms: percentile(times, 0.5),
    p99Ms: percentile(times, 0.99),
    maxMs: times.at(-1) ?? 0,
  }
}
