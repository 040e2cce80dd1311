import { readFileSync } from 'node:fs'
import { Agent } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BROAD_PREFIXES, broadSearches, firstPagePath } from '../../bench/broad-searches.js'
import { LOADING_TIMEOUT_MS, loadMembers, memberIdOf } from '../../bench/load-members.js'
import type { DatabaseConfig } from '../../src/config/settings.js'
import { DATABASES, type IsolatedDatabase, openDatabase } from '../helpers/databases.js'
import {
  flood,
  idleConnection,
  type Load,
  neverReading,
  type SearchAnswer,
  searchClient,
} from '../helpers/hostile-load.js'
import { percentile, startLatencyProbe } from '../helpers/latency-probe.js'
import {
  FROM_BUILD,
  killLeftoverProcesses,
  type ServerProcess,
  startServerProcess,
} from '../helpers/process.js'

/*
 * No client can make the service slow for another, or grow its memory (decisions §9),
 * with a million members, on the production bundle with its default limits. First each
 * of 90 broad searches alone: five one-letter prefixes (10 to 20% of the members each),
 * six sorts, the first, middle and last page. Then for 30 s all of this at once: 16
 * clients looping over those searches without pause, 4 connections pipelining 600
 * requests at a time, 100 pipelining 400 and never reading, 300 sitting idle. Meanwhile a
 * well-behaved client, in a process of its own, reads a member by id and /health/live.
 */

const MEMBERS = 1_000_000
const ALONE_WITHIN_MS = 250
const MIX_MS = 30_000
const SEARCH_CLIENTS = 16
const FLOODS = 4
const FLOOD_DEPTH = 600
const NEVER_READING = 100
const NEVER_READING_DEPTH = 400
const IDLE = 300
/** The well-behaved client's bounds on a machine as fast as the one they were set on (below). */
const MEMBER_P99_MS = 100
const LIVE_P99_MS = 50
/**
 * The median of the 90 searches alone on the CI host when the bounds above were first
 * met there. The same hosts have since run the same code two to three times slower on
 * some days (the whole CI run 21 min one day, 50 the next), and a latency under load
 * grows with that. So the bounds are scaled by how much slower this run's own median
 * is, never below the figures above. Turning the admission limits off does not change
 * that median, so missing limits still fail.
 */
const REFERENCE_ALONE_P50_MS: Record<string, number> = { sqlite: 25, postgres: 41 }
/**
 * The searches alone cannot be their own measure of the day's speed. Theirs is the
 * database's own (`machineScanMs`): the fastest of five counts of every entry of the
 * first-name index, a walk that no plan of ours shapes. It took 31 ms (SQLite) and 63 ms
 * (PostgreSQL) on the machine where the slowest search alone took 78 and 144 ms against
 * 250. The 250 ms bound is scaled by how much slower that count is in this run, never
 * below 250, so a plan that walks or sorts more than it should still fails. The same
 * code once measured 260 ms on PostgreSQL in CI, on one of the slow days above.
 */
const REFERENCE_SCAN_MS: Record<string, number> = { sqlite: 31, postgres: 63 }
/**
 * Issue 23's bound was 300 MB; the source-map loader added some 6 MB. Without a ceiling
 * on V8's old generation, garbage made the peak vary from run to run; with the Node
 * flags production uses (FROM_BUILD), the peak is well under it
 * (docs/operations/capacity.md#memory-the-node-flags).
 */
const PEAK_RSS_MB = 320
const FLOOD_PATH = '/api/v1/openapi.json'
const LARGE_FILE = '/api/docs/static/swagger-ui-bundle.js'
const BUSY = { code: 'e.ex.fw.9005', message: 'The service is busy. Retry later.' }

/**
 * Settings for the server beyond its defaults, as NAME=value,NAME=value: to show by hand
 * that the test tells, e.g. BOUNDED_WORK_SETTINGS=SEARCH_CONCURRENCY=0,HASH_CONCURRENCY=0
 * (no admission limits) makes it fail.
 */
const SETTINGS = Object.fromEntries(
  (process.env.BOUNDED_WORK_SETTINGS ?? '')
    .split(',')
    .filter((pair) => pair.includes('='))
    .map((pair) => pair.split('=') as [string, string]),
)

/** How long each search took, in ms, with its path: fastest first. */
type Timed = [number, string][]

/** The 90 broad searches of bench/broad-searches.ts, for this server's members. */
async function broadSearchPaths(server: ServerProcess): Promise<string[]> {
  const totalPages = new Map<string, number>()
  for (const prefix of BROAD_PREFIXES) {
    const first = await server.request('GET', firstPagePath(prefix))
    totalPages.set(prefix, (first.body as { totalPages: number }).totalPages)
  }
  return broadSearches((prefix) => totalPages.get(prefix) ?? 0).map((search) => search.path)
}

/** The process's peak resident memory so far (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const line = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(line?.[1]) / 1024
}

/**
 * The fastest of five counts of every entry of the first-name index, in ms: how fast the
 * database walks an index on this machine today, whatever the service's plans are.
 */
async function machineScanMs(config: DatabaseConfig): Promise<number> {
  const database = await openDatabase(config)
  try {
    const times: number[] = []
    for (let n = 0; n < 5; n += 1) {
      const started = performance.now()
      await database.db
        .selectFrom('member')
        .where('first_name', '>=', '')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
      times.push(performance.now() - started)
    }
    return Math.min(...times)
  } finally {
    await database.close()
  }
}

/** Answers the server logged with a 5xx status other than the busy 503. */
function failedAnswers(server: ServerProcess): string[] {
  return server.stdoutLines.filter((line) => {
    const status = /"status":(\d{3})/.exec(line)?.[1]
    return status !== undefined && status >= '500' && status !== '503'
  })
}

for (const target of DATABASES) {
  describe.skipIf(!target.available)(
    `Bounded work with 1,000,000 members on ${target.name}`,
    () => {
      let isolated: IsolatedDatabase
      let server: ServerProcess
      let searches: string[]

      beforeAll(async () => {
        isolated = await target.create()
        const database = await openDatabase(isolated.config, { timeoutMs: LOADING_TIMEOUT_MS })
        try {
          await loadMembers(database, MEMBERS, (line) =>
            console.log(`${target.name}: ${line.trim()}`),
          )
        } finally {
          await database.close()
        }
        server = await startServerProcess(isolated.config, SETTINGS, { entry: FROM_BUILD })
        searches = await broadSearchPaths(server)
      }, 300_000)
      afterAll(async () => {
        await killLeftoverProcesses()
        await isolated?.drop()
      })

      /**
       * Each of the 90 searches alone, three times: the first pass also brings the indexes
       * into the database's cache; a search's time is the better of the next two, so that
       * a moment when another process on the host holds the core is not counted as its.
       */
      let alone: Promise<{ first: Timed; warm: Timed }> | undefined
      const searchesAlone = () => {
        alone ??= timeSearchesAlone()
        return alone
      }
      async function timeSearchesAlone(): Promise<{ first: Timed; warm: Timed }> {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 })
        const timed = async () => {
          const durations = new Map<string, number>()
          for (const path of searches) {
            const started = performance.now()
            const answer = await server.request('GET', path, { agent })
            durations.set(path, performance.now() - started)
            expect(answer.status, path).toBe(200)
            expect((answer.body as { content: unknown[] }).content.length).toBeGreaterThan(0)
          }
          return durations
        }
        const fastestFirst = (durations: Map<string, number>): Timed =>
          [...durations].map(([path, ms]): [number, string] => [ms, path]).sort(([a], [b]) => a - b)
        const first = await timed()
        const [second, third] = [await timed(), await timed()]
        agent.destroy()
        const warm = new Map(
          searches.map((path) => [
            path,
            Math.min(second.get(path) ?? Infinity, third.get(path) ?? Infinity),
          ]),
        )
        return { first: fastestFirst(first), warm: fastestFirst(warm) }
      }

      it("answers each of the 90 broad searches alone within 250 ms (scaled by the day's scan speed)", async () => {
        const { first, warm } = await searchesAlone()
        const scanMs = await machineScanMs(isolated.config)
        const slower = Math.max(1, scanMs / (REFERENCE_SCAN_MS[target.name] ?? scanMs))
        const withinMs = Math.round(ALONE_WITHIN_MS * slower)
        const summary = (pass: Timed) =>
          `p50 ${percentile(
            pass.map(([ms]) => ms),
            50,
          ).toFixed(0)} ms, slowest ${pass.at(-1)?.[0].toFixed(0)} ms (${pass.at(-1)?.[1]})`
        console.log(
          `${target.name}, 90 broad searches alone: first pass ${summary(first)}; warm ${summary(warm)}; index count ${scanMs.toFixed(1)} ms, bound ${withinMs} ms`,
        )
        expect(warm.filter(([ms]) => ms > withinMs)).toEqual([])
      })

      it('keeps a well-behaved client fast amid 30 s of hostile load, within 320 MB, with no 5xx but 503 e.ex.fw.9005', async () => {
        const memberPath = `/api/v1/members/${memberIdOf(MEMBERS / 2)}`
        const probe = startLatencyProbe(server.baseUrl, [memberPath, '/health/live'])
        // A well-behaved client is there before the load begins, as clients are.
        await new Promise((resolve) => setTimeout(resolve, 1000))
        const loads: Load[] = Array.from({ length: IDLE }, () => idleConnection(server.port))
        for (let n = 0; n < NEVER_READING; n += 1) {
          const path = n % 2 === 0 ? LARGE_FILE : (searches[n % searches.length] as string)
          loads.push(await neverReading(server.port, path, NEVER_READING_DEPTH))
        }
        const floodStatuses = new Map<number, number>()
        for (let n = 0; n < FLOODS; n += 1) {
          loads.push(flood(server.port, FLOOD_PATH, FLOOD_DEPTH, floodStatuses))
        }
        const answers: SearchAnswer[] = []
        for (let n = 0; n < SEARCH_CLIENTS; n += 1) {
          loads.push(searchClient(server.baseUrl, searches, answers))
        }
        await new Promise((resolve) => setTimeout(resolve, MIX_MS))
        const { answers: probed, failures } = await probe.stop()
        await Promise.all(loads.map((load) => load.stop()))

        const timesOf = (path: string) => probed.filter((a) => a.path === path).map((a) => a.ms)
        const [memberTimes, liveTimes] = [timesOf(memberPath), timesOf('/health/live')]
        const statuses = (list: readonly { status: number }[]) => {
          const counts: Record<number, number> = {}
          for (const { status } of list) counts[status] = (counts[status] ?? 0) + 1
          return counts
        }
        const figures = {
          memberP99Ms: Math.round(percentile(memberTimes, 99)),
          memberMaxMs: Math.round(Math.max(...memberTimes)),
          liveP99Ms: Math.round(percentile(liveTimes, 99)),
          liveMaxMs: Math.round(Math.max(...liveTimes)),
          probes: probed.length,
          peakRssMb: Math.round(peakRssMb(server.pid)),
          searches: statuses(answers),
          floods: Object.fromEntries(floodStatuses),
        }
        const aloneP50Ms = percentile(
          (await searchesAlone()).warm.map(([ms]) => ms),
          50,
        )
        const slower = Math.max(1, aloneP50Ms / (REFERENCE_ALONE_P50_MS[target.name] ?? aloneP50Ms))
        const bounds = {
          slower: Math.round(slower * 100) / 100,
          memberP99Ms: Math.round(MEMBER_P99_MS * slower),
          liveP99Ms: Math.round(LIVE_P99_MS * slower),
        }
        console.log(
          `${target.name}, 30 s of hostile load: ${JSON.stringify(figures)}; bounds ${JSON.stringify(bounds)}`,
        )

        expect(failures).toEqual([])
        expect(new Set(probed.map((a) => a.status))).toEqual(new Set([200]))
        expect(figures.memberP99Ms).toBeLessThanOrEqual(bounds.memberP99Ms)
        expect(figures.liveP99Ms).toBeLessThanOrEqual(bounds.liveP99Ms)
        expect(figures.peakRssMb).toBeLessThanOrEqual(PEAK_RSS_MB)
        // Searches answered or refused as busy, with when to come back; floods all answered.
        const refused = answers.filter((a) => a.status !== 200)
        for (const answer of refused) {
          expect(answer.status).toBe(503)
          expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1)
          expect(JSON.parse(answer.body)).toEqual(BUSY)
        }
        expect(answers.length - refused.length).toBeGreaterThan(SEARCH_CLIENTS)
        // Floods are answered, or closed when their read-ahead would pass READ_AHEAD_MAX.
        expect([...floodStatuses.keys()].filter((status) => status !== 200)).toEqual([])
        expect(failedAnswers(server)).toEqual([])
      })
    },
  )
}
