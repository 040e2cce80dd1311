import { randomInt } from 'node:crypto'
import { Agent, request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOADING_TIMEOUT_MS, loadMembers } from '../../bench/load-members.js'
import { DATABASES, type IsolatedDatabase, openDatabase } from '../helpers/databases.js'
import { type IdentityProvider, startIdentityProvider } from '../helpers/identity-provider.js'
import { percentile } from '../helpers/latency-probe.js'
import { uniqueEmail, validMember } from '../helpers/members.js'
import {
  FROM_BUILD,
  killLeftoverProcesses,
  type ServerProcess,
  startServerProcess,
} from '../helpers/process.js'

/*
 * Fair shares of expensive work (decisions §9): while one client floods a kind of work
 * (many connections from one address; or many addresses behind a trusted proxy, with one
 * token subject), another client's requests of the same kind are answered 200 (201) at
 * least 19 times in 20, at a p99 no more than its p99 alone plus the flooding client's
 * longest request of the same run; the flood's excess is 503 e.ex.fw.9005 with
 * Retry-After. One place and a short queue for each kind, so that the flood fills both.
 */

const MEMBERS = 20_000
const TODOS = 1_000
const FLOOD_CONNECTIONS = 48
const PROBES = 20
const FLOOD_FILLS_MS = 500
const LIMITS = {
  SEARCH_CONCURRENCY: '1',
  TODO_LIST_CONCURRENCY: '1',
  HASH_CONCURRENCY: '1',
  QUEUE_LENGTH: '16',
  QUEUE_TIMEOUT: '2000',
}
const SCOPES = 'members:read members:write todos:read todos:write'

interface Call {
  readonly method: string
  readonly path: string
  readonly body?: unknown
}

/** The kinds of bounded work, each as one request of it. */
const KINDS: readonly { readonly name: string; readonly call: (who: string) => Call }[] = [
  {
    name: 'member search',
    call: () => ({ method: 'GET', path: '/api/v1/members?name=M&size=20' }),
  },
  { name: 'todo list', call: () => ({ method: 'GET', path: '/api/v1/todos' }) },
  {
    name: 'password hashing',
    call: (who) => ({
      method: 'POST',
      path: '/api/v1/members',
      body: validMember({ emailAddress: uniqueEmail(who) }),
    }),
  },
]

interface Answer {
  readonly status: number
  readonly ms: number
  readonly code?: string
  readonly retryAfter?: string
}

/** One client: its own connections, from its own address, with its own headers. */
interface Client {
  readonly agent: Agent
  readonly localAddress: string
  headers(): Record<string, string>
}

function send(server: ServerProcess, client: Client, call: Call): Promise<Answer> {
  const body = call.body === undefined ? undefined : JSON.stringify(call.body)
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port: server.port,
        method: call.method,
        path: call.path,
        agent: client.agent,
        localAddress: client.localAddress,
        headers: {
          ...client.headers(),
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => {
          const status = response.statusCode ?? 0
          const text = Buffer.concat(chunks).toString('utf8')
          const code = status >= 400 ? (JSON.parse(text) as { code?: string }).code : undefined
          const retryAfter = response.headers['retry-after']
          resolve({ status, ms: performance.now() - started, code, retryAfter })
        })
      },
    )
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}

/** `client` sends `count` requests one after another. */
async function oneByOne(server: ServerProcess, client: Client, call: () => Call, count: number) {
  const answers: Answer[] = []
  for (let n = 0; n < count; n += 1) answers.push(await send(server, client, call()))
  return answers
}

/** `client` keeps FLOOD_CONNECTIONS requests in flight until stopped. */
function flood(server: ServerProcess, client: Client, call: () => Call) {
  let running = true
  const answers: Answer[] = []
  const loops = Array.from({ length: FLOOD_CONNECTIONS }, async () => {
    while (running) answers.push(await send(server, client, call()))
  })
  return {
    stop: async () => {
      running = false
      await Promise.all(loops)
      return answers
    },
  }
}

const succeeded = (answers: readonly Answer[]) => answers.filter((a) => a.status < 300)
const randomAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`

/** How the two clients are told apart: by address, or by token subject behind a proxy. */
interface Identities {
  readonly name: string
  readonly settings: (provider: IdentityProvider) => Record<string, string>
  readonly clients: (provider: IdentityProvider) => Promise<{ flooder: Client; neighbour: Client }>
}

const agent = (sockets: number) => new Agent({ keepAlive: true, maxSockets: sockets })

const IDENTITIES: readonly Identities[] = [
  {
    name: 'many connections from one address',
    settings: () => ({}),
    clients: async () => ({
      flooder: { agent: agent(FLOOD_CONNECTIONS), localAddress: '127.0.0.1', headers: () => ({}) },
      neighbour: { agent: agent(1), localAddress: '127.0.0.2', headers: () => ({}) },
    }),
  },
  {
    name: 'many addresses behind a trusted proxy, one token subject',
    settings: (provider) => ({
      TRUST_PROXY: 'true',
      AUTH_JWKS_URL: provider.jwksUrl,
      AUTH_ISSUER: provider.issuer,
      AUTH_AUDIENCE: provider.audience,
    }),
    clients: async (provider) => {
      const flooderToken = await provider.token(SCOPES, { claims: { sub: 'flooder' } })
      const neighbourToken = await provider.token(SCOPES, { claims: { sub: 'neighbour' } })
      return {
        flooder: {
          agent: agent(FLOOD_CONNECTIONS),
          localAddress: '127.0.0.1',
          headers: () => ({
            authorization: `Bearer ${flooderToken}`,
            'x-forwarded-for': randomAddress(),
          }),
        },
        neighbour: {
          agent: agent(1),
          localAddress: '127.0.0.1',
          headers: () => ({
            authorization: `Bearer ${neighbourToken}`,
            'x-forwarded-for': '198.51.100.7',
          }),
        },
      }
    },
  },
]

for (const target of DATABASES) {
  describe.skipIf(!target.available)(`Fair shares of bounded work on ${target.name}`, () => {
    let isolated: IsolatedDatabase
    let provider: IdentityProvider

    beforeAll(async () => {
      provider = await startIdentityProvider()
      isolated = await target.create()
      const database = await openDatabase(isolated.config, { timeoutMs: LOADING_TIMEOUT_MS })
      try {
        await loadMembers(database, MEMBERS, () => {})
      } finally {
        await database.close()
      }
      const server = await startServerProcess(isolated.config, {}, { entry: FROM_BUILD })
      for (let n = 0; n < TODOS; n += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, k) =>
            server.request('POST', '/api/v1/todos', { body: { todoTitle: `fair ${n + k}` } }),
          ),
        )
      }
      server.kill('SIGTERM')
      await server.exited
    }, 300_000)
    afterAll(async () => {
      await killLeftoverProcesses()
      await provider?.stop()
      await isolated?.drop()
    })

    for (const identities of IDENTITIES) {
      it(`keeps each kind of work for a neighbour while one client floods it: ${identities.name}`, async () => {
        const server = await startServerProcess(
          isolated.config,
          { ...LIMITS, ...identities.settings(provider) },
          { entry: FROM_BUILD },
        )
        const { flooder, neighbour } = await identities.clients(provider)
        try {
          for (const kind of KINDS) {
            const alone = await oneByOne(server, neighbour, () => kind.call('alone'), PROBES)
            expect(succeeded(alone), kind.name).toHaveLength(PROBES)
            const flooding = flood(server, flooder, () => kind.call('flooder'))
            await new Promise((resolve) => setTimeout(resolve, FLOOD_FILLS_MS))
            const amid = await oneByOne(server, neighbour, () => kind.call('neighbour'), PROBES)
            const flooded = await flooding.stop()

            const longestFloodMs = Math.max(...succeeded(flooded).map((a) => a.ms))
            const aloneP99 = percentile(
              succeeded(alone).map((a) => a.ms),
              99,
            )
            const amidP99 = percentile(
              succeeded(amid).map((a) => a.ms),
              99,
            )
            const refused = flooded.filter((a) => a.status === 503)
            console.log(
              `${target.name}, ${identities.name}, ${kind.name}: neighbour ${succeeded(amid).length}/${PROBES} answered, p99 ${amidP99.toFixed(0)} ms (alone ${aloneP99.toFixed(0)} ms); flood ${succeeded(flooded).length} answered (longest ${longestFloodMs.toFixed(0)} ms), ${refused.length} refused`,
            )
            expect(succeeded(amid).length, kind.name).toBeGreaterThanOrEqual(PROBES - 1)
            expect(amidP99, kind.name).toBeLessThanOrEqual(aloneP99 + longestFloodMs)
            expect(refused.length, kind.name).toBeGreaterThan(0)
            for (const answer of refused) {
              expect(answer).toMatchObject({ code: 'e.ex.fw.9005', retryAfter: expect.any(String) })
            }
            expect(flooded.filter((a) => a.status >= 500 && a.status !== 503)).toEqual([])
          }
        } finally {
          flooder.agent.destroy()
          neighbour.agent.destroy()
          server.kill('SIGTERM')
          await server.exited
        }
      })
    }
  })
}
