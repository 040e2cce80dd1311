import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { connect } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from './ports.js'

export const REDIS_SERVER = '/usr/bin/redis-server'
export const HAS_REDIS = existsSync(REDIS_SERVER)

/** A Redis of a test's own on a free loopback port, keeping nothing on disk; stoppable at will. */
export interface TestRedis {
  readonly url: string
  stop(): Promise<void>
  start(): Promise<void>
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.once('data', (data) => {
      socket.destroy()
      resolve(data.toString().startsWith('+PONG'))
    })
    socket.once('error', () => resolve(false))
  })
}

export async function startRedis(): Promise<TestRedis> {
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = async () => {
    child = spawn(
      REDIS_SERVER,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    )
    for (let attempt = 0; !(await answers(port)); attempt += 1) {
      if (attempt > 100) throw new Error(`redis-server did not start on ${port}`)
      await sleep(50)
    }
  }
  const stop = async () => {
    const running = child
    child = undefined
    if (!running || running.exitCode !== null) return
    const exited = new Promise((resolve) => running.once('exit', resolve))
    running.kill('SIGKILL')
    await exited
  }
  await start()
  return { url: `redis://127.0.0.1:${port}`, stop, start }
}
