/**
 * The options of `npm run bench` (usage in bench/run.ts), and the sizes and paths of a
 * run that follow from them.
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'

const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    'warm-up': { type: 'string', default: '5000' },
    'skip-1m': { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    connections: { type: 'string', default: '50' },
    only: { type: 'string' },
  },
})
/** Whether a part of the run (a scenario, the searches, the cold starts) is asked for. */
const ONLY = options.only === undefined ? undefined : new RegExp(options.only, 'i')
export const wanted = (name: string) => ONLY === undefined || ONLY.test(name)
export const BUILD = !options['no-build']
export const ROUNDS = Number(options.rounds)
export const SECONDS = Number(options.seconds)
/**
 * Requests each scenario sends to both of its targets, unmeasured, before the rounds.
 * V8 optimizes a function after enough calls, not enough seconds: a GET load is warm
 * within its first second, a load of creates (each a 19 MiB hash) is not, and the
 * service's create costs less event-loop CPU after some thousands of them, while the
 * bare hashing server has a few lines to compile. Measured rounds compare the two as
 * they run for hours, warm.
 */
export const WARM_UP_REQUESTS = Number(options['warm-up'])
export const CONNECTIONS = 10
/** GET by id is measured as the issue that set its targets measured it: 50 connections. */
export const GET_CONNECTIONS = Number(options.connections)
export const HASH_CONCURRENCY = 4
export const LARGE = options['skip-1m'] ? 100_000 : 1_000_000
export const DATA_DIR = resolve('data/bench')
export const PG_URL = process.env.BENCH_DATABASE_URL
