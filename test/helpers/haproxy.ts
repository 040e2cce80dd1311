import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { http } from './http.js'
import { freePort } from './ports.js'
import { pause } from './time.js'

export const HAPROXY = '/usr/sbin/haproxy'
export const HAS_HAPROXY = existsSync(HAPROXY)
export const HAPROXY_CONFIG = 'deploy/haproxy.cfg'

export interface RunningHaproxy {
  /** Where clients connect: the `api` frontend. */
  readonly port: number
  /** HAProxy's own monitor (the `health` frontend): 200 while an instance is up. */
  readonly healthPort: number
  /** What HAProxy wrote: its start-up warnings and its request log. */
  readonly output: string[]
  stop(): void
}

/**
 * Debian's HAProxy started with `config` (the shipped deploy/haproxy.cfg by default, whose
 * `${NAME-default}` variables give this run's ports) in front of the instances at
 * `instances` (up to three; the last one fills the rest), once its monitor says one of them
 * is up. `settings` are more of the file's variables (RETRIES, CHECK_INTER, …).
 */
export async function startHaproxy(
  instances: readonly string[],
  settings: Record<string, string> = {},
  config = HAPROXY_CONFIG,
): Promise<RunningHaproxy> {
  const [port, healthPort] = [await freePort(), await freePort()]
  const servers = [0, 1, 2].map((index) => instances[Math.min(index, instances.length - 1)])
  const child: ChildProcess = spawn(HAPROXY, ['-f', config, '-db'], {
    env: {
      ...process.env,
      FRONTEND_BIND: `127.0.0.1:${port}`,
      HEALTH_BIND: `127.0.0.1:${healthPort}`,
      ...Object.fromEntries(servers.map((server, index) => [`APP${index + 1}`, server])),
      ...settings,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output: string[] = []
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (chunk: Buffer) => output.push(...chunk.toString().split('\n')))
  }
  const stop = () => {
    child.kill('SIGKILL')
  }
  const deadline = Date.now() + 15_000
  for (;;) {
    const health = await http(`http://127.0.0.1:${healthPort}`, 'GET', '/health', {
      timeoutMs: 1000,
    }).then(
      (response) => response.status,
      () => 0,
    )
    if (health === 200) return { port, healthPort, output, stop }
    if (Date.now() > deadline || child.exitCode !== null) {
      stop()
      throw new Error(`HAProxy did not come up:\n${output.join('\n')}`)
    }
    await pause(100)
  }
}
