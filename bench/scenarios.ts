/**
 * The scenarios of a run: each a load measured on a reference and on the service, in
 * turn, and the figures it is held to.
 */
import type autocannon from 'autocannon'
import { startIdentityProvider } from '../test/helpers/identity-provider.js'
import { startOtlpReceiver } from '../test/helpers/otlp-receiver.js'
import { startRedis } from '../test/helpers/redis.js'
import { type Dataset, POSTED_ADDRESS_PREFIX } from './datasets.js'
import { SEARCH_PREFIX } from './load-members.js'
import { type Figure, load, loadAlone, type Sample } from './measure-load.js'
import type { Running } from './processes.js'
import { HASH_CONCURRENCY, LARGE } from './run-options.js'
import { service } from './service.js'

/**
 * What a scenario is held to: ours / reference within `min`..`max`, or ours at most
 * `overBy` above the reference (memory, in MB).
 */
export interface Target {
  readonly figure: Figure
  readonly min?: number
  readonly max?: number
  readonly overBy?: number
}

export interface Scenario {
  readonly name: string
  readonly reference: string
  /** The figures it is held to; none: shown for scale, requests per second. */
  readonly targets?: readonly Target[]
  measureReference(): Promise<Sample>
  measureOurs(): Promise<Sample>
}

function memberBody(sequence: number): string {
  return JSON.stringify({
    firstName: 'Bench',
    lastName: 'Post',
    genderCode: '1',
    dateOfBirth: '1990-01-01',
    emailAddress: `${POSTED_ADDRESS_PREFIX}${process.pid}-${sequence}@example.com`,
    credential: { password: 'bench-password' },
  })
}

/** Counts every member posted in this run, so that no two share an e-mail address. */
let membersPosted = 0

/** POST a new member each time (a unique e-mail address, so a unique sign id). */
function memberPosts(): Partial<autocannon.Request> {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    setupRequest: (request) => {
      membersPosted += 1
      return { ...request, body: memberBody(membersPosted) }
    },
  }
}

/** The references a database's scenarios are held to. */
export interface References {
  /** GET /todos/:id and /members/:id: the same lookup, bare (Fastify or node:http). */
  readonly lookup: Running
  readonly lookupName: string
  /** What GET by id is held to against `lookup`. */
  readonly getTargets: readonly Target[]
  /** The same lookup on bare Fastify doing only what the contract asks of every answer. */
  readonly floor: Running
  /** POST: a bare server that hashes each posted password with the same argon2id cost. */
  readonly hashing: Running
}

export const GET_TARGETS_SQLITE: readonly Target[] = [
  { figure: 'reqPerSec', min: 1 },
  { figure: 'cpuUsPerRequest', max: 1 },
  { figure: 'peakRssMb', overBy: 15 },
]
export const GET_TARGETS_POSTGRES: readonly Target[] = [
  { figure: 'reqPerSec', min: 1 },
  { figure: 'cpuUsPerRequest', max: 1 },
]
/** Shown, not held: what a floor of the contract costs against the same reference. */
const FLOOR_FIGURES: readonly Target[] = [{ figure: 'reqPerSec' }, { figure: 'cpuUsPerRequest' }]
const POST_TARGETS: readonly Target[] = [
  { figure: 'reqPerSec', min: 0.95 },
  { figure: 'peakRssMb', overBy: 30 },
]

export function scenariosFor(
  label: string,
  small: Dataset,
  smallService: Running,
  largeService: Running | undefined,
  references: References,
): Scenario[] {
  /** GET by id of the service, or of the contract's floor (shown, not held). */
  const byId = (resource: 'todos' | 'members', id: string, floor = false): Scenario => {
    const what = `GET one ${resource === 'todos' ? 'Todo' : 'Member'}`
    return {
      name: floor ? `${what}, the contract's floor (${label}) (for scale)` : `${what} (${label})`,
      reference: references.lookupName,
      targets: floor ? FLOOR_FIGURES : references.getTargets,
      measureReference: () => loadAlone(references.lookup, `/${resource}/${id}`),
      measureOurs: () =>
        floor
          ? loadAlone(references.floor, `/${resource}/${id}`)
          : loadAlone(smallService, `/api/v1/${resource}/${id}`),
    }
  }
  const list: Scenario[] = [
    byId('todos', small.todoId),
    byId('members', small.memberId),
    byId('todos', small.todoId, true),
    byId('members', small.memberId, true),
  ]
  if (largeService) {
    const search = `/api/v1/members?name=${SEARCH_PREFIX}&size=20`
    list.push({
      name: `Search page of 20, ${LARGE.toLocaleString('en')} members (${label})`,
      reference: 'the same search at 10,000 members',
      targets: [{ figure: 'p99', max: 1.5 }],
      measureReference: () => load(smallService, search),
      measureOurs: () => load(largeService, search),
    })
  }
  list.push({
    name: `POST a Member (${label})`,
    reference: `bare node:http + argon2id hash of the posted password, ${HASH_CONCURRENCY} at a time`,
    targets: POST_TARGETS,
    measureReference: () => load(references.hashing, '/', memberPosts(), HASH_CONCURRENCY),
    measureOurs: () => load(smallService, '/api/v1/members', memberPosts(), HASH_CONCURRENCY),
  })
  return list
}

/**
 * What each production-edge feature costs when on (ratio to the same service with it
 * off, in the same round): authentication with a valid token, the rate limit counted in
 * the process and in Redis (each limit far above what the load reaches), and tracing
 * every request to a local OTLP receiver.
 */
export async function featureScenarios(small: Dataset, off: Running): Promise<Scenario[]> {
  const provider = await startIdentityProvider()
  const redis = await startRedis()
  const token = await provider.token('todos:read', { expiresIn: '2h' })
  const ready = `/api/v1/todos/${small.todoId}`
  const generous = { RATE_LIMIT: '100000000/hour' }
  const authenticated = await service(small.config, '/health/live', {
    AUTH_JWKS_URL: provider.jwksUrl,
    AUTH_ISSUER: provider.issuer,
    AUTH_AUDIENCE: provider.audience,
  })
  const limited = await service(small.config, ready, generous)
  const limitedInRedis = await service(small.config, ready, { ...generous, REDIS_URL: redis.url })
  const receiver = await startOtlpReceiver()
  const traced = await service(small.config, ready, {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  })
  // 'exit', not 'beforeExit': main() ends with process.exit(). Each stop kills at once.
  process.once('exit', () => {
    void provider.stop()
    void redis.stop()
    void receiver.close()
  })
  const offFigure = () => load(off, ready)
  return [
    {
      name: 'GET one Todo (SQLite), authentication on (a valid bearer token)',
      reference: 'the same, every feature off',
      measureReference: offFigure,
      measureOurs: () =>
        load(authenticated, ready, { headers: { authorization: `Bearer ${token}` } }),
    },
    {
      name: 'GET one Todo (SQLite), RATE_LIMIT on, counted in the process',
      reference: 'the same, every feature off',
      measureReference: offFigure,
      measureOurs: () => load(limited, ready),
    },
    {
      name: 'GET one Todo (SQLite), RATE_LIMIT on, counted in Redis',
      reference: 'the same, every feature off',
      measureReference: offFigure,
      measureOurs: () => load(limitedInRedis, ready),
    },
    {
      name: 'GET one Todo (SQLite), tracing on, every request sampled, exported over OTLP',
      reference: 'the same, every feature off',
      measureReference: offFigure,
      measureOurs: () => load(traced, ready),
    },
  ]
}
