import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type IsolatedDatabase, SQLITE_TARGET } from '../helpers/databases.js'
import { FLEET_PASSWORDS, HAS_COMPOSE, instancesOf, resolvedFleet } from '../helpers/fleet.js'
import {
  HAPROXY_CONFIG,
  HAS_HAPROXY,
  type RunningHaproxy,
  startHaproxy,
} from '../helpers/haproxy.js'
import { http } from '../helpers/http.js'
import { FROM_BUILD, type ServerProcess, startServerProcess } from '../helpers/process.js'

/**
 * The edge as shipped: HAProxy with deploy/haproxy.cfg in front of the service with the
 * fleet's TRUST_PROXY (deploy/compose.yaml, resolved with HAProxy's address here,
 * 127.0.0.1, through the same HAPROXY_ADDRESS an operator sets). Clients connect from
 * addresses of their own (127.0.0.2, …), so that each is a client HAProxy can tell apart.
 * Made-up X-Forwarded-* change neither whom a request counts for nor its Location, and two
 * clients have two budgets; the same file without its header rules lets the forgery
 * through, so that the test can fail.
 */

/** A budget small enough to exhaust, in a window no test outlasts. */
const BUDGET = 5
const REQUESTS = BUDGET + 2

const FORGED = (index: number) => ({
  'x-forwarded-for': `203.0.113.${index + 1}`,
  'x-forwarded-host': 'evil.example',
  'x-forwarded-proto': 'https',
  'x-forwarded-port': '443',
  forwarded: `for=198.51.100.${index + 1};host=evil.example;proto=https`,
  'x-real-ip': `198.51.100.${index + 1}`,
})

/** The file as shipped, less every rule that sets or drops a forwarded header. */
function withoutHeaderRules(): string {
  return readFileSync(HAPROXY_CONFIG, 'utf8')
    .split('\n')
    .filter((line) => !/^\s*http-request (set|del)-header /.test(line))
    .join('\n')
}

describe.skipIf(!HAS_HAPROXY || !HAS_COMPOSE)(
  'The shipped edge: HAProxy before TRUST_PROXY',
  () => {
    const fleet = HAS_COMPOSE
      ? resolvedFleet({
          ...FLEET_PASSWORDS,
          HAPROXY_ADDRESS: '127.0.0.1',
          FRONT_SUBNET: '127.0.0.0/24',
        })
      : { services: {}, networks: {} }
    const shipped = instancesOf(fleet)[0]?.[1].environment ?? {}
    const folder = mkdtempSync(join(tmpdir(), 'edge-'))
    let database: IsolatedDatabase | undefined
    let server: ServerProcess | undefined
    let haproxy: RunningHaproxy | undefined
    let forgetful: RunningHaproxy | undefined

    beforeAll(async () => {
      database = await SQLITE_TARGET.create()
      server = await startServerProcess(
        database.config,
        {
          TRUST_PROXY: shipped.TRUST_PROXY ?? '',
          // A port of its own, as the fleet's 9464, but free on this machine.
          METRICS_PORT: '0',
          RATE_LIMIT: `${BUDGET}/minute`,
        },
        { entry: FROM_BUILD },
      )
      const instance = `127.0.0.1:${server.port}`
      haproxy = await startHaproxy([instance])
      writeFileSync(join(folder, 'haproxy.cfg'), withoutHeaderRules())
      forgetful = await startHaproxy([instance], {}, join(folder, 'haproxy.cfg'))
    }, 60_000)
    afterAll(async () => {
      haproxy?.stop()
      forgetful?.stop()
      server?.kill()
      await server?.exited
      await database?.drop()
      rmSync(folder, { recursive: true, force: true })
    })

    /** REQUESTS creates from `client`, with made-up forwarded headers or none. */
    async function creates(through: RunningHaproxy | undefined, client: string, forged: boolean) {
      const answers = []
      for (let index = 0; index < REQUESTS; index += 1) {
        answers.push(
          await http(`http://127.0.0.1:${through?.port}`, 'POST', '/api/v1/todos', {
            body: { todoTitle: `edge ${client} ${index}` },
            headers: forged ? FORGED(index) : {},
            localAddress: client,
          }),
        )
      }
      return answers
    }

    it('trusts HAProxy’s address alone, as the fleet ships it', () => {
      expect(shipped.TRUST_PROXY).toBe('127.0.0.1')
    })

    it('counts a client under its own address whatever X-Forwarded-For it makes up', async () => {
      const forger = await creates(haproxy, '127.0.0.2', true)
      expect(forger.map(({ status }) => status)).toEqual([
        ...Array<number>(BUDGET).fill(201),
        ...Array<number>(REQUESTS - BUDGET).fill(429),
      ])
      for (const { headers } of forger.slice(0, BUDGET)) {
        expect(headers.location).toMatch(
          new RegExp(`^http://127\\.0\\.0\\.1:${haproxy?.port}/api/v1/todos/[\\w-]+$`),
        )
      }
      // Another client has a budget of its own.
      const honest = await creates(haproxy, '127.0.0.3', false)
      expect(honest.slice(0, BUDGET).map(({ status }) => status)).toEqual(Array(BUDGET).fill(201))
      // Each request's log line names the client it counted for.
      await expect
        .poll(() => clientsLogged(server), { timeout: 5000 })
        .toEqual(expect.arrayContaining(['127.0.0.2', '127.0.0.3']))
      expect(clientsLogged(server)).not.toContain('203.0.113.1')
    })

    it('lets the forgery through when the file’s header rules are taken out', async () => {
      const forger = await creates(forgetful, '127.0.0.4', true)
      expect(forger.every(({ status }) => status === 201)).toBe(true)
      expect(forger[0]?.headers.location).toMatch(/^https:\/\/evil\.example\//)
    })

    it('does not forward /metrics, which the instances serve on a port of their own', async () => {
      const metrics = await http(`http://127.0.0.1:${haproxy?.port}`, 'GET', '/metrics')
      expect(metrics.status).toBe(404)
    })

    it('is healthy by the fleet’s own check of HAProxy’s monitor', () => {
      const [, program, ...args] = fleet.services.haproxy?.healthcheck?.test ?? []
      const script = (args.at(-1) ?? '').replace('/8405', `/${haproxy?.healthPort}`)
      const check = spawnSync(program ?? '', [...args.slice(0, -1), script], { encoding: 'utf8' })
      expect(check.status, check.stderr).toBe(0)
    })
  },
)

/** The `client` of every request line the server logged so far. */
function clientsLogged(server: ServerProcess | undefined): string[] {
  return (server?.stdoutLines ?? []).flatMap((line) => {
    const entry = JSON.parse(line) as { msg?: string; client?: string }
    return entry.msg === 'request completed' && entry.client ? [entry.client] : []
  })
}
