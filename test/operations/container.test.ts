import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createApiClient,
  type Member,
  type MemberCreate,
  type Todo,
} from '../../clients/typescript/src/client.js'
import { runClientSession } from '../helpers/client-session.js'
import { DATABASES, type DatabaseTarget, type IsolatedDatabase } from '../helpers/databases.js'
import { imageFacts, PACKAGE_VERSION } from '../helpers/dockerfile.js'
import { http } from '../helpers/http.js'
import { openLogSink } from '../helpers/log-scan.js'
import { memberCreateBody, uniqueEmail } from '../helpers/members.js'
import { freePort } from '../helpers/ports.js'
import { databaseSettingsOf } from '../helpers/process.js'
import { pause } from '../helpers/time.js'

/**
 * The container image the Dockerfile builds, run for real with podman. TEST_CONTAINER_IMAGE
 * names it (.ci/run builds it on local base images, scripts/container/local-base.sh, and
 * points CONTAINERS_CONF at scripts/container/containers.conf); without it the suite is
 * skipped, which global setup says at the top of the run.
 *
 * Each container runs as Kubernetes would run it (deploy/kubernetes.yaml): a read-only root
 * filesystem, nothing but SQLite's data folder writable, and on PostgreSQL not even that.
 * It shares the host's network and listens on 127.0.0.1 only, on a free port.
 */

const IMAGE = process.env.TEST_CONTAINER_IMAGE
const FACTS = imageFacts()

/** `podman stop`'s wait before SIGKILL: longer than the service's SHUTDOWN_TIMEOUT (10 s). */
const STOP_TIMEOUT_S = 15
/** How long a container may take from `podman run` to its first 200 on /health/ready. */
const READY_WITHIN_MS = 30_000
const CONTAINER_TEST = { timeout: 60_000 }

const execFileAsync = promisify(execFile)

/** A podman command's output; its standard error is in the failure when it fails. */
function podmanOutput(args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  return execFileAsync('podman', args, { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 })
}

/** A podman command's standard output, trimmed. */
async function podman(...args: string[]): Promise<string> {
  return (await podmanOutput(args)).stdout.trim()
}

/** A podman command's exit code, for the commands whose failure is an answer. */
async function podmanStatus(...args: string[]): Promise<number> {
  return podman(...args).then(
    () => 0,
    (error: { code?: unknown }) => (typeof error.code === 'number' ? error.code : -1),
  )
}

/** `podman inspect --format`, of a container or (with `image`) of an image. */
async function inspect(
  name: string,
  format: string,
  kind: 'container' | 'image' = 'container',
): Promise<string> {
  return podman(kind, 'inspect', '--format', format, name)
}

/** A shell command's output inside the image, as root (to see every folder), without the service. */
function inImage(script: string): Promise<string> {
  const options = ['--rm', '--no-healthcheck', '--user=0', '--network=none', '--entrypoint=sh']
  return podman('run', ...options, IMAGE as string, '-c', script)
}

interface RunningContainer {
  readonly name: string
  readonly baseUrl: string
  /** Milliseconds from `podman run` to the first 200 on /health/ready. */
  readonly readyMs: number
}

/**
 * `podman run`, and the wait for /health/ready: one request at a time, each given a
 * second, until READY_WITHIN_MS; a container that exits first fails at once, with its log.
 */
async function runContainer(
  name: string,
  settings: Record<string, string>,
  storage: readonly string[],
): Promise<RunningContainer> {
  const port = await freePort()
  const env = { HOST: '127.0.0.1', PORT: String(port), ...settings }
  const started = performance.now()
  await podman(
    'run',
    '--detach',
    `--name=${name}`,
    '--network=host',
    '--read-only',
    '--read-only-tmpfs=false',
    ...storage,
    ...Object.entries(env).map(([key, value]) => `--env=${key}=${value}`),
    IMAGE as string,
  )
  const baseUrl = `http://127.0.0.1:${port}`
  while (performance.now() - started < READY_WITHIN_MS) {
    const status = await http(baseUrl, 'GET', '/health/ready', { timeoutMs: 1000 }).then(
      (response) => response.status,
      () => 0,
    )
    if (status === 200) return { name, baseUrl, readyMs: Math.round(performance.now() - started) }
    if ((await inspect(name, '{{.State.Running}}')) !== 'true') break
    await pause(100)
  }
  throw new Error(`${name} was not ready within ${READY_WITHIN_MS} ms:\n${await logsOf(name)}`)
}

/** Everything the container wrote, standard error included. */
async function logsOf(name: string): Promise<string> {
  const { stdout, stderr } = await podmanOutput(['logs', name])
  return stdout + stderr
}

/** Its log lines to the run's log directory, which global teardown scans for passwords. */
async function keepLogs(name: string): Promise<void> {
  const text = await logsOf(name)
  openLogSink()?.write(text.endsWith('\n') ? text : `${text}\n`)
}

/** The `msg` of each JSON line of the container's log. */
async function messagesOf(name: string): Promise<string[]> {
  return (await logsOf(name))
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg?: string }).msg ?? '')
}

/** `podman stop` (SIGTERM, then SIGKILL after STOP_TIMEOUT_S): exit code and milliseconds. */
async function stop(name: string): Promise<{ exitCode: number; stopMs: number }> {
  const started = performance.now()
  await podman('stop', `--time=${STOP_TIMEOUT_S}`, name)
  const stopMs = Math.round(performance.now() - started)
  return { exitCode: Number(await inspect(name, '{{.State.ExitCode}}')), stopMs }
}

/** How each database's containers keep their data: a named volume, or no volume at all. */
function storageFor(target: DatabaseTarget, volume: string): readonly string[] {
  return target.name === 'sqlite'
    ? [`--volume=${volume}:${FACTS.volumes[0]}`]
    : // PostgreSQL keeps everything: the image's data folder stays part of the read-only root.
      ['--image-volume=ignore']
}

describe.skipIf(IMAGE === undefined)(`The container image ${IMAGE ?? ''}`, () => {
  it('is labelled as the Dockerfile says, with the version and revision CI built', async () => {
    const labels = JSON.parse(
      await inspect(IMAGE as string, '{{json .Labels}}', 'image'),
    ) as Record<string, string>
    for (const key of ['title', 'description', 'licenses']) {
      const name = `org.opencontainers.image.${key}`
      expect(labels[name], name).toBe(FACTS.labels[name])
    }
    expect(labels['org.opencontainers.image.version']).toBe(PACKAGE_VERSION)
    expect(labels['org.opencontainers.image.revision']).toMatch(/^[0-9a-f]{40}$/)
    expect(URL.canParse(labels['org.opencontainers.image.source'] ?? '')).toBe(true)
    expect(await inspect(IMAGE as string, '{{.Config.User}}', 'image')).toBe(FACTS.user)
    expect(
      JSON.parse(await inspect(IMAGE as string, '{{json .Config.Entrypoint}}', 'image')),
    ).toEqual(FACTS.entrypoint)
    const size = Number(await inspect(IMAGE as string, '{{.Size}}', 'image'))
    console.log(`${IMAGE}: ${(size / 1e6).toFixed(0)} MB`)
  })

  it('holds what runs and nothing else: no compiler, no npm cache, no TypeScript sources', async () => {
    expect((await inImage(`ls -A ${FACTS.workdir}`)).split('\n')).toEqual([
      'data',
      'dist',
      'node_modules',
      'package.json',
    ])
    // Each command found prints its path; none may be found.
    expect(
      await inImage('for c in cc gcc g++ c++ clang make python3 tsc; do command -v $c; done; true'),
    ).toBe('')
    expect(await inImage('find / -xdev -type d \\( -name _cacache -o -name .npm \\) -print')).toBe(
      '',
    )
    expect(
      await inImage(
        `find ${FACTS.workdir} -xdev -name '*.ts' ! -name '*.d.ts' ! -name '*.d.mts' ! -name '*.d.cts' ! -path '*/node_modules/*' -print`,
      ),
    ).toBe('')
    // One SQLite driver, the one the image's Node.js loads (Node-API 10: better-sqlite3 13).
    expect(await inImage(`ls ${FACTS.workdir}/node_modules | grep '^better-sqlite3'`)).toBe(
      'better-sqlite3-napi',
    )
    // What runs is there: the bundle and the web app.
    expect(
      await inImage(`cd ${FACTS.workdir} && ls dist/server.js dist/service.js dist/web/index.html`),
    ).toBe('dist/server.js\ndist/service.js\ndist/web/index.html')
    const appBytes = Number((await inImage(`du -sb ${FACTS.workdir}`)).split('\t')[0])
    console.log(`${IMAGE}: ${FACTS.workdir} holds ${(appBytes / 1e6).toFixed(0)} MB`)
    expect(appBytes).toBeLessThan(200e6)
  })

  it(
    'serves on its defaults: port EXPOSE names, SQLite on its volume, found by its HEALTHCHECK',
    async () => {
      // No network but the container's own loopback, where the health check asks.
      const name = `todo-member-api-test-defaults-${randomBytes(3).toString('hex')}`
      try {
        await podman('run', '--detach', `--name=${name}`, '--network=none', IMAGE as string)
        const started = performance.now()
        let health = await podmanStatus('healthcheck', 'run', name)
        while (health !== 0 && performance.now() - started < READY_WITHIN_MS) {
          await pause(200)
          health = await podmanStatus('healthcheck', 'run', name)
        }
        expect(health).toBe(0)
        const ready = `fetch('http://127.0.0.1:${FACTS.port}/health/ready').then((r) => process.exit(r.status === 200 ? 0 : 1))`
        expect(await podmanStatus('exec', name, 'node', '-e', ready)).toBe(0)
        expect(await podman('exec', name, 'ls', `${FACTS.workdir}/data`)).toContain('api.sqlite')
        // Even on a writable root, the service's user cannot change its code.
        expect(await podmanStatus('exec', name, 'touch', `${FACTS.workdir}/dist/x`)).not.toBe(0)
        expect((await stop(name)).exitCode).toBe(0)
      } finally {
        await keepLogs(name).catch(() => undefined)
        await podman('rm', '--force', '--volumes', name).catch(() => undefined)
      }
    },
    CONTAINER_TEST.timeout,
  )

  it('names the data folder, the image’s user and the fix when that user cannot write it', async () => {
    // A host folder of root's, mode 755, as the data volume: the image's user may not write.
    const folder = mkdtempSync(join(tmpdir(), 'container-data-'))
    try {
      chmodSync(folder, 0o755)
      const failed = await podmanOutput([
        'run',
        '--rm',
        '--no-healthcheck',
        '--network=none',
        `--volume=${folder}:${FACTS.volumes[0]}`,
        IMAGE as string,
      ]).then(
        () => undefined,
        (error: { code?: unknown; stderr?: string }) => error,
      )
      expect(failed?.code).toBe(1)
      const lines = (failed?.stderr ?? '').trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^Could not start: DATABASE_URL \(SQLite file /)
      expect(lines[0]).toContain(`the folder ${FACTS.volumes[0]} (owner 0:0, mode 755)`)
      expect(lines[0]).toContain(`uid ${FACTS.uid}, gid ${FACTS.gid}`)
      expect(lines[0]).toMatch(/Fix: give the service's user .* write access to \/app\/data/)
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })

  for (const target of DATABASES) {
    describe.skipIf(!target.available)(`on ${target.name}`, () => {
      const run = randomBytes(3).toString('hex')
      const volume = `todo-member-api-test-${run}`
      const names: string[] = []
      let database: IsolatedDatabase | undefined
      let settings: Record<string, string> = {}
      let first: RunningContainer | undefined
      let todo: Todo | undefined
      let member: Member | undefined

      beforeAll(async () => {
        database = await target.create()
        // SQLite: the image's default file, ./data/api.sqlite, on a named volume.
        if (target.name === 'sqlite') await podman('volume', 'create', volume)
        else settings = databaseSettingsOf(database.config)
        names.push(`todo-member-api-test-${run}-1`)
        first = await runContainer(names[0] as string, settings, storageFor(target, volume))
        console.log(
          `${target.name}: podman run to the first 200 on /health/ready: ${first.readyMs} ms`,
        )
      }, CONTAINER_TEST.timeout)

      afterAll(async () => {
        for (const name of names) {
          await keepLogs(name).catch(() => undefined)
          await podman('rm', '--force', '--volumes', name).catch(() => undefined)
        }
        if (target.name === 'sqlite') await podman('volume', 'rm', '--force', volume)
        await database?.drop()
      }, CONTAINER_TEST.timeout)

      const running = (): RunningContainer => {
        if (first === undefined) throw new Error('the container did not start')
        return first
      }

      it('answers /health/live and /health/ready, and its HEALTHCHECK says healthy', async () => {
        const live = await http(running().baseUrl, 'GET', FACTS.healthPath)
        expect([live.status, live.body]).toEqual([200, { status: 'UP' }])
        const ready = await http(running().baseUrl, 'GET', '/health/ready')
        expect(ready.status).toBe(200)
        expect(ready.body).toMatchObject({ status: 'UP', checks: { database: 'UP' } })
        // The image's own check, run inside the container (podman has no timer without systemd).
        expect(await podmanStatus('healthcheck', 'run', running().name)).toBe(0)
        expect(running().readyMs).toBeLessThan(READY_WITHIN_MS)
      })

      it(
        'replays a client session over HTTP: todos, members, search, errors',
        async () => {
          await runClientSession({ baseUrl: running().baseUrl })
          // Kept for the restart below.
          const api = createApiClient({ baseUrl: running().baseUrl })
          todo = (await api.createTodo({ todoTitle: `Container ${run}` })).todo
          const body: MemberCreate = {
            ...memberCreateBody(`Container${run}`, 'Image', uniqueEmail('container')),
            genderCode: '1',
          }
          member = (await api.createMember(body)).member
          expect((await api.getTodo(todo.todoId)).todo).toEqual(todo)
          expect((await api.getMember(member.memberId)).member).toEqual(member)
          const found = await api.searchAllMembers({ name: `Container${run}` })
          expect(found.map(({ memberId }) => memberId)).toEqual([member.memberId])
        },
        CONTAINER_TEST.timeout,
      )

      it('runs as the Dockerfile’s user, not root, on a read-only root filesystem', async () => {
        expect(await podman('exec', running().name, 'id', '-u')).toBe(String(FACTS.uid))
        expect(await podman('exec', running().name, 'id', '-g')).toBe(String(FACTS.gid))
        expect(await inspect(running().name, '{{.Config.User}}')).toBe(FACTS.user)
        expect(await inspect(running().name, '{{.HostConfig.ReadonlyRootfs}}')).toBe('true')
        // Not even root may write there: the filesystem itself is read-only.
        const write = ['exec', '--user=0', running().name, 'touch', `${FACTS.workdir}/x`]
        expect(await podmanStatus(...write)).not.toBe(0)
      })

      const backups = mkdtempSync(join(tmpdir(), 'container-backups-'))
      afterAll(() => rmSync(backups, { recursive: true, force: true }))

      it.skipIf(target.name !== 'sqlite')(
        'backs up beside the service, as the manual shows: podman exec, then podman cp',
        async () => {
          const name = running().name
          await podman('exec', name, 'mkdir', '-p', `${FACTS.workdir}/data/backups`)
          const file = `${FACTS.workdir}/data/backups/api.sqlite`
          const line = await podman('exec', name, 'node', 'dist/server.js', 'backup', file)
          expect(line).toMatch(/^Backed up /)
          await podman('cp', `${name}:${file}`, join(backups, 'api.sqlite'))
          chmodSync(backups, 0o755)
          chmodSync(join(backups, 'api.sqlite'), 0o644)
        },
        CONTAINER_TEST.timeout,
      )

      it(`stops on podman stop (SIGTERM) with exit code 0, within ${STOP_TIMEOUT_S} s`, async () => {
        const { exitCode, stopMs } = await stop(running().name)
        console.log(`${target.name}: podman stop took ${stopMs} ms`)
        expect(exitCode).toBe(0)
        expect(stopMs).toBeLessThan(STOP_TIMEOUT_S * 1000)
        // conmon may still be writing the last lines to the log when podman stop returns.
        await expect.poll(async () => (await messagesOf(running().name)).at(-1)).toBe('stopped')
        expect(await messagesOf(running().name)).toContain('stopping: finishing requests in flight')
      })

      it.skipIf(target.name !== 'sqlite')(
        'restores in a container of its own on the volume, the service stopped',
        async () => {
          const line = await podman(
            'run',
            '--rm',
            '--no-healthcheck',
            '--network=none',
            ...storageFor(target, volume),
            `--volume=${backups}:/backups:ro`,
            IMAGE as string,
            'restore',
            '/backups/api.sqlite',
          )
          expect(line).toMatch(/^Restored /)
        },
        CONTAINER_TEST.timeout,
      )

      it(
        'a new container on the same data reads back what the first one wrote',
        async () => {
          if (todo === undefined || member === undefined) throw new Error('nothing was written')
          names.push(`todo-member-api-test-${run}-2`)
          const second = await runContainer(
            names[1] as string,
            settings,
            storageFor(target, volume),
          )
          const api = createApiClient({ baseUrl: second.baseUrl })
          expect((await api.getTodo(todo.todoId)).todo).toEqual(todo)
          expect((await api.getMember(member.memberId)).member).toEqual(member)
          expect((await stop(second.name)).exitCode).toBe(0)
        },
        CONTAINER_TEST.timeout,
      )
    })
  }
})
