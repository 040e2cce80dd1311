import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  applyVariant,
  describeStep,
  type IdKind,
  type IdRef,
  isIdRef,
  renderStep,
  type Step,
} from '../../src/testing/request-steps.js'
import type { ResourceRequests } from '../../src/testing/resource-requests.js'
import { type IsolatedDatabase, POSTGRES_TARGET, SQLITE_TARGET } from '../helpers/databases.js'
import type { HttpResponse } from '../helpers/http.js'
import { RESOURCE_REQUESTS, requestSequence } from '../helpers/request-generators.js'
import { startServer, type TestServer } from '../helpers/server.js'

/**
 * Differential test: generated request sequences (test/helpers/request-generators.ts,
 * from each resource's testing/requests.ts)
 * go to a SQLite-backed and a PostgreSQL-backed server, step by step, each step to both.
 * After normalizing what must differ (ids, time stamps, host:port), status, body and the
 * headers that matter must be the same. A difference fails with the shrunk sequence and
 * the normalized answers of its first differing step.
 *
 * Every sequence (and every replay of one) starts from the same state: the seed
 * population (each resource's `seeds`), created through the API on both before the
 * first sequence and copied back into the tables before each one. Ids are compared as
 * placeholders: `<member 3>` is the fourth member created on each, seeds first.
 *
 * Settings (environment): DIFFERENTIAL_SEED (or FUZZ_SEED) replays a run,
 * DIFFERENTIAL_PATH with it replays one counterexample, DIFFERENTIAL_RUNS and
 * DIFFERENTIAL_STEPS size the run, DIFFERENTIAL_SURVEY=1 does not stop at the first
 * difference: it runs every sequence and lists each kind of difference it met.
 */

const SEED = Number(process.env.DIFFERENTIAL_SEED ?? process.env.FUZZ_SEED ?? Date.now() % 1e9)
const RUNS = Number(process.env.DIFFERENTIAL_RUNS ?? 150)
const MAX_STEPS = Number(process.env.DIFFERENTIAL_STEPS ?? 8)
const REPLAY_PATH = process.env.DIFFERENTIAL_PATH
const SURVEY = process.env.DIFFERENTIAL_SURVEY === '1'
/** Shrinking stops trying smaller sequences after this long (the file must stay ~60 s). */
const SHRINK_BUDGET_MS = 20_000
/** Response headers compared; X-Track, Date, Keep-Alive and the like are not. */
const COMPARED_HEADERS = [
  'content-type',
  'location',
  'etag',
  'allow',
  'idempotent-replayed',
  'cache-control',
] as const
const DATE_TIME = /\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g
const ORIGIN = /^http:\/\/127\.0\.0\.1:\d+/
/** What a resource's requests say of it, by its kind (`todo`). */
const BY_KIND = new Map(RESOURCE_REQUESTS.map((requests) => [requests.kind, requests]))
const requestsOf = (kind: IdKind) => BY_KIND.get(kind) as ResourceRequests
const BY_COLLECTION = new Map(RESOURCE_REQUESTS.map((requests) => [requests.collection, requests]))
/**
 * Tables a sequence may change, each restored to its seed copy before every sequence:
 * every resource's, and the Idempotency-Key outcomes.
 */
const TABLES = [...RESOURCE_REQUESTS.flatMap(({ tables }) => tables), 'idempotency_key']
/** Copies of the tables as seeded (CREATE TABLE AS: the same columns, on both databases). */
const SAVE_SEED = TABLES.map((table) => `create table seed_${table} as select * from ${table}`)
/** Rows deleted from the tables that reference others first, and inserted after them. */
const RESTORE_SEED = [
  ...TABLES.toReversed().map((table) => `delete from ${table}`),
  ...TABLES.map((table) => `insert into ${table} select * from seed_${table}`),
]

interface Side {
  readonly name: string
  readonly database: IsolatedDatabase
  readonly server: TestServer
}

/** An answer with what must differ replaced by placeholders. */
interface Normalized {
  readonly status: number
  readonly headers: Record<string, string>
  /** Parsed JSON, or `{ text }` when the body is not JSON; undefined when empty. */
  readonly body: unknown
}

interface Difference {
  readonly signature: string
  readonly stepIndex: number
  /** The steps up to the differing one, their references named by placeholder. */
  readonly steps: readonly string[]
  readonly requests: readonly string[]
  readonly answers: readonly Normalized[]
}

class DifferenceFound extends Error {
  constructor(readonly difference: Difference) {
    super(`differing answers: ${difference.signature}`)
  }
}

/** The ids each server gave to what the sequence created, and their common placeholders. */
class CreatedIds {
  private readonly pairs: Record<IdKind, string[][]> = Object.fromEntries(
    RESOURCE_REQUESTS.map(({ kind }) => [kind, []]),
  )
  private readonly placeholders: Map<string, string>[]

  constructor(sides: number, seeded?: CreatedIds) {
    this.placeholders = Array.from(
      { length: sides },
      (_, side) => new Map(seeded?.placeholders[side]),
    )
    if (seeded) {
      for (const [kind, pairs] of Object.entries(seeded.pairs)) this.pairs[kind]?.push(...pairs)
    }
  }

  /** Which pair a reference names: the `index`-th newest (undefined while there is none). */
  private pairOf(ref: IdRef): number | undefined {
    const count = this.pairs[ref.ref]?.length ?? 0
    return count === 0 ? undefined : count - 1 - (ref.index % count)
  }

  /** Side `side`'s id for a reference (a fixed unknown id while nothing exists). */
  resolve(ref: IdRef, side: number): string {
    const pair = this.pairOf(ref)
    const id =
      pair === undefined
        ? requestsOf(ref.ref).unknownId
        : (this.pairs[ref.ref]?.[pair]?.[side] as string)
    return applyVariant(id, ref.variant)
  }

  /** A reference as the report shows it: the placeholder of what it names. */
  nameOf(ref: IdRef): string {
    const pair = this.pairOf(ref)
    const variant = ref.variant === 'same' ? '' : ` ${ref.variant}`
    return pair === undefined ? `<no ${ref.ref}${variant}>` : `<${ref.ref} ${pair}${variant}>`
  }

  /** Learns the ids of a create that succeeded everywhere (a replayed create is known already). */
  learn(kind: IdKind, responses: readonly HttpResponse[]): void {
    if (!responses.every((response) => response.status === 201)) return
    const ids = responses.map((response) => idOf(kind, response))
    if (ids.some((id) => id === undefined || id === '')) return
    if (this.placeholders[0]?.has(ids[0] as string)) return
    const pairs = this.pairs[kind] as string[][]
    const placeholder = `<${kind} ${pairs.length}>`
    pairs.push(ids as string[])
    for (const [side, id] of ids.entries()) {
      const placeholders = this.placeholders[side] as Map<string, string>
      // Near misses that do not contain the id (the others are replaced with it).
      for (const variant of ['swapcase', 'short'] as const) {
        const spelled = applyVariant(id as string, variant)
        if (spelled !== id) placeholders.set(spelled, `<${kind} ${pairs.length - 1} ${variant}>`)
      }
      placeholders.set(id as string, placeholder)
    }
  }

  /** Every id side `side` gave, replaced by its placeholder, and every date-time. */
  normalizeText(text: string, side: number): string {
    let result = text
    // Longest first, so that an id is replaced before the shorter near miss inside it.
    const known = [...(this.placeholders[side] ?? [])].sort(([a], [b]) => b.length - a.length)
    for (const [id, placeholder] of known) result = result.split(id).join(placeholder)
    return result.replace(DATE_TIME, '<date-time>')
  }
}

function idOf(kind: IdKind, response: HttpResponse): string | undefined {
  const body = response.body as Record<string, unknown> | undefined
  const id = body?.[requestsOf(kind).idField]
  if (typeof id === 'string') return id
  const location = response.headers.location
  return typeof location === 'string'
    ? decodeURIComponent(location.split('/').pop() ?? '')
    : undefined
}

function normalize(response: HttpResponse, created: CreatedIds, side: number): Normalized {
  const text = (value: string) => created.normalizeText(value, side)
  const deep = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value)
    if (Array.isArray(value)) return value.map(deep)
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, deep(inner)]))
    }
    return value
  }
  const headers: Record<string, string> = {}
  for (const name of COMPARED_HEADERS) {
    const value = response.headers[name]
    if (value === undefined) continue
    const joined = Array.isArray(value) ? value.join(', ') : value
    headers[name] = text(name === 'location' ? joined.replace(ORIGIN, 'http://<host>') : joined)
  }
  let body: unknown
  if (response.text !== '') {
    body = response.body === undefined ? { text: text(response.text) } : deep(response.body)
  }
  return { status: response.status, headers, body }
}

/** Equal answers, or, where the resource compares its own (a search's order), equal to it. */
function sameAnswer(step: Step, a: Normalized, b: Normalized): boolean {
  if (a.status !== b.status || !isDeepStrictEqual(a.headers, b.headers)) return false
  const own =
    a.status === 200
      ? BY_COLLECTION.get(step.collection)?.sameAnswer?.(step, a.body, b.body)
      : undefined
  return own ?? isDeepStrictEqual(a.body, b.body)
}

/** What kind of difference: the route and each side's status and error code. */
function signatureOf(step: Step, answers: readonly Normalized[]): string {
  const route =
    step.id === undefined
      ? `/api/v1/${step.collection}${step.query === undefined ? '' : '?…'}`
      : `/api/v1/${step.collection}/${isIdRef(step.id) ? `{${step.id.ref}${step.id.variant === 'same' ? '' : ` ${step.id.variant}`}}` : '{raw id}'}`
  const outcome = (answer: Normalized) => {
    const code = (answer.body as { code?: unknown } | undefined)?.code
    return `${answer.status}${typeof code === 'string' ? ` ${code}` : ''}`
  }
  return `${step.method} ${route}: ${answers.map(outcome).join(' vs ')}`
}

function shown(value: unknown, limit = 1500): string {
  const text = JSON.stringify(value) ?? 'undefined'
  return text.length > limit ? `${text.slice(0, limit)}…` : text
}

if (!POSTGRES_TARGET.available) {
  console.log(
    'Differential SQLite/PostgreSQL suite: SKIPPED, TEST_DATABASE_URL is not set ' +
      '(e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test).',
  )
}

describe.skipIf(!POSTGRES_TARGET.available)('SQLite and PostgreSQL answer alike', () => {
  const sides: Side[] = []

  /** The seed population's ids on each side: every sequence starts from it. */
  let seeded: CreatedIds | undefined

  beforeAll(async () => {
    for (const target of [SQLITE_TARGET, POSTGRES_TARGET]) {
      const database = await target.create()
      sides.push({ name: target.name, database, server: await startServer(database.config) })
    }
    // The seed population, created through the API on both, then saved by each database.
    const seeds = new CreatedIds(sides.length)
    const create = async (kind: IdKind, path: string, body: unknown) => {
      const responses = await Promise.all(
        sides.map((side) => side.server.request('POST', path, { body })),
      )
      for (const response of responses) {
        if (response.status !== 201) throw new Error(`seeding ${path}: ${response.text}`)
      }
      seeds.learn(kind, responses)
    }
    for (const { kind, collection, seeds: bodies } of RESOURCE_REQUESTS) {
      for (const body of bodies) await create(kind, `/api/v1/${collection}`, body)
    }
    for (const [index, side] of sides.entries()) {
      for (const { kind, collection, seedChanges } of RESOURCE_REQUESTS) {
        const pathOf = (seed: number) =>
          `/api/v1/${collection}/${seeds.resolve({ ref: kind, index: seed, variant: 'same' }, index)}`
        for (const change of seedChanges?.(pathOf) ?? []) {
          const changed = await side.server.request(change.method, change.path)
          if (changed.status >= 300) throw new Error(`seeding: ${changed.text}`)
        }
      }
      await side.database.exec(SAVE_SEED.join(';\n'))
    }
    seeded = seeds
  })
  afterAll(async () => {
    for (const side of sides) {
      await side.server.close()
      await side.database.drop()
    }
  })

  it(`answers ${RUNS} generated request sequences the same on both, never with a 5xx`, async () => {
    let sequences = 0
    let shrinkReplays = 0
    let requests = 0
    /** What answered 5xx on both: no difference, but a broken promise, so it fails too. */
    const bothFailed = new Map<string, string>()
    const createdCount = Object.fromEntries(RESOURCE_REQUESTS.map(({ kind }) => [kind, 0]))
    let firstFailureAt: number | undefined
    const differences = new Map<string, Difference>()
    let differingRuns = 0

    /** Runs the sequence on both from the seed population; the first differing step, if any. */
    async function runSequence(steps: readonly Step[]): Promise<Difference | undefined> {
      await Promise.all(sides.map((side) => side.database.exec(RESTORE_SEED.join(';\n'))))
      const created = new CreatedIds(sides.length, seeded)
      const described: string[] = []
      for (const [stepIndex, step] of steps.entries()) {
        described.push(describeStep(step, (ref) => created.nameOf(ref)))
        const responses: HttpResponse[] = []
        const requestsSent: string[] = []
        for (const [index, side] of sides.entries()) {
          const request = renderStep(step, (ref) => created.resolve(ref, index))
          requestsSent.push(`${request.method} ${request.path}`)
          responses.push(
            await side.server.request(request.method, request.path, {
              headers: request.headers,
              ...(request.body !== undefined && { body: request.body }),
            }),
          )
          requests += 1
        }
        const kind = BY_COLLECTION.get(step.collection)?.kind
        if (kind !== undefined && step.method === 'POST' && step.id === undefined) {
          if (responses.every((response) => response.status === 201)) {
            createdCount[kind] = (createdCount[kind] ?? 0) + 1
          }
          created.learn(kind, responses)
        }
        const answers = responses.map((response, side) => normalize(response, created, side))
        const [a, b] = answers as [Normalized, Normalized]
        if (a.status >= 500 && b.status >= 500) {
          const signature = signatureOf(step, answers)
          if (!bothFailed.has(signature)) bothFailed.set(signature, requestsSent[0] ?? '')
        }
        // Bad input never gets a 5xx: the same 5xx on both databases fails as well.
        if (!sameAnswer(step, a, b) || a.status >= 500) {
          const difference: Difference = {
            signature: signatureOf(step, answers),
            stepIndex,
            steps: described,
            requests: requestsSent,
            answers,
          }
          differingRuns += 1
          if (!differences.has(difference.signature)) {
            differences.set(difference.signature, difference)
          }
          return difference
        }
      }
      return undefined
    }

    const property = fc.asyncProperty(requestSequence(MAX_STEPS), async (steps) => {
      if (firstFailureAt !== undefined) {
        // Shrinking: past the budget, report smaller candidates as passing, which ends it.
        if (Date.now() - firstFailureAt > SHRINK_BUDGET_MS) return
        shrinkReplays += 1
      } else {
        sequences += 1
      }
      let difference: Difference | undefined
      try {
        difference = await runSequence(steps)
      } catch (error) {
        // No answer at all (a server down, a connection reset): shrinks within the budget too.
        firstFailureAt ??= Date.now()
        throw error
      }
      if (difference === undefined || SURVEY) return
      firstFailureAt ??= Date.now()
      throw new DifferenceFound(difference)
    })

    const started = Date.now()
    const details = await fc.check(property, {
      numRuns: RUNS,
      seed: SEED,
      ...(REPLAY_PATH !== undefined && { path: REPLAY_PATH }),
    })
    const seconds = ((Date.now() - started) / 1000).toFixed(1)
    const kinds = [...differences.keys()]
    console.log(
      `Differential SQLite/PostgreSQL (seed ${SEED}): ${sequences} sequences` +
        `${shrinkReplays > 0 ? ` and ${shrinkReplays} shrinking replays` : ''}, ` +
        `${requests.toLocaleString('en')} requests (${requests / 2} per database) in ${seconds} s, ` +
        `created: ${Object.entries(createdCount)
          .map(([kind, count]) => `${count} ${kind}`)
          .join(', ')}; ` +
        `${differingRuns} of these runs differed, ${differences.size} kinds of difference` +
        `${kinds.length > 0 ? `: ${kinds.join(' | ')}` : ''}; ` +
        `answered 5xx on both: ${bothFailed.size === 0 ? 'nothing' : [...bothFailed].map(([kind, example]) => `${kind} (${shown(example, 120)})`).join(' | ')}.`,
    )

    if (SURVEY && differences.size > 0) {
      expect.fail(
        [
          `${differences.size} kinds of difference between ${sides.map((side) => side.name).join(' and ')}:`,
          ...[...differences.values()].map((difference) => report(difference)),
        ].join('\n\n'),
      )
    }
    if (details.failed) {
      const error = details.errorInstance
      if (!(error instanceof DifferenceFound)) throw error
      expect.fail(
        [
          `${sides.map((side) => side.name).join(' and ')} answer differently. ` +
            `Replay: DIFFERENTIAL_SEED=${details.seed} DIFFERENTIAL_PATH="${details.counterexamplePath}" ` +
            `(shrunk ${details.numShrinks} times${
              firstFailureAt !== undefined && Date.now() - firstFailureAt > SHRINK_BUDGET_MS
                ? ', then stopped: shrinking budget spent'
                : ''
            }).`,
          report(error.difference),
          `Counterexample as generated: ${fc.stringify(details.counterexample)}`,
        ].join('\n\n'),
      )
    }
  }, 180_000)

  function report({ signature, stepIndex, steps, requests, answers }: Difference): string {
    return [
      `${signature}`,
      `Sequence up to the difference (${steps.length} step${steps.length === 1 ? '' : 's'}), ` +
        'each database holding just the ' +
        `seed population before it (${RESOURCE_REQUESTS.map(
          ({ kind, seeds }) => `<${kind} 0> to <${kind} ${seeds.length - 1}>`,
        ).join(', ')}; each resource's testing/requests.ts):`,
      ...steps.map(
        (step, index) => `  ${index + 1}. ${step}${index === stepIndex ? '   <-- differs' : ''}`,
      ),
      `Step ${stepIndex + 1} as sent: ${requests
        .map((request, index) => `${sides[index]?.name}: ${shown(request, 200)}`)
        .join(', ')}`,
      ...answers.map(
        (answer, index) =>
          `  ${(sides[index]?.name ?? '').padEnd(8)} -> ${answer.status} ${shown(answer.headers)} ${shown(answer.body)}`,
      ),
    ].join('\n')
  }
})
