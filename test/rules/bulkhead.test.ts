import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import type { AdmissionLimits, WorkOptions } from '../../src/domain/common/admission.js'
import { ServiceBusyError } from '../../src/domain/common/errors.js'
import { Bulkhead } from '../../src/infra/work/bulkhead.js'

/** Tasks that run until told to finish, and the order they started in. */
function controlledTasks(bulkhead: Bulkhead) {
  const started: string[] = []
  const finishers = new Map<string, () => void>()
  const run = (name: string, options?: WorkOptions) =>
    bulkhead.run(async () => {
      started.push(name)
      await new Promise<void>((resolve) => finishers.set(name, resolve))
      return name
    }, options)
  const finish = async (name: string) => {
    finishers.get(name)?.()
    await sleep(0)
  }
  return { started, run, finish }
}

const limits = (overrides: Partial<AdmissionLimits> = {}): AdmissionLimits => ({
  concurrency: 2,
  queueLength: 2,
  queueTimeoutMs: 10_000,
  ...overrides,
})

describe('Bulkhead', () => {
  it('runs at most `concurrency` tasks at once, the others in the order they came', async () => {
    const bulkhead = new Bulkhead(limits())
    const { started, run, finish } = controlledTasks(bulkhead)
    const results = ['a', 'b', 'c', 'd'].map((name) => run(name))
    await sleep(0)
    expect(started).toEqual(['a', 'b'])
    expect(bulkhead.figures()).toMatchObject({ running: 2, waiting: 2 })
    await finish('b')
    expect(started).toEqual(['a', 'b', 'c'])
    await finish('a')
    await finish('c')
    await finish('d')
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd'])
    expect(bulkhead.figures()).toEqual({
      running: 0,
      waiting: 0,
      shed: { 'queue-full': 0, 'queue-timeout': 0 },
    })
  })

  it('refuses at once a task that finds the queue full, before it runs', async () => {
    const bulkhead = new Bulkhead(limits({ concurrency: 1, queueLength: 1, queueTimeoutMs: 3000 }))
    const { started, run, finish } = controlledTasks(bulkhead)
    const admitted = [run('a'), run('b')]
    const refused = run('c')
    await expect(refused).rejects.toBeInstanceOf(ServiceBusyError)
    await expect(refused).rejects.toMatchObject({ name: 'ServiceBusyError', retryAfterSeconds: 3 })
    expect(started).toEqual(['a'])
    await finish('a')
    await finish('b')
    expect(await Promise.all(admitted)).toEqual(['a', 'b'])
    expect(started).toEqual(['a', 'b'])
    expect(bulkhead.figures().shed).toEqual({ 'queue-full': 1, 'queue-timeout': 0 })
  })

  it('refuses a task that waited past the queue timeout, and never runs it', async () => {
    const bulkhead = new Bulkhead(limits({ concurrency: 1, queueTimeoutMs: 50 }))
    const { started, run, finish } = controlledTasks(bulkhead)
    const first = run('a')
    const waited = Date.now()
    await expect(run('b')).rejects.toBeInstanceOf(ServiceBusyError)
    expect(Date.now() - waited).toBeGreaterThanOrEqual(45)
    expect(bulkhead.figures()).toMatchObject({ running: 1, waiting: 0 })
    await finish('a')
    await first
    expect(started).toEqual(['a'])
    expect(bulkhead.figures().shed).toEqual({ 'queue-full': 0, 'queue-timeout': 1 })
  })

  it('lets a continuing task wait past a full queue, without a time limit', async () => {
    const bulkhead = new Bulkhead(limits({ concurrency: 1, queueLength: 1, queueTimeoutMs: 20 }))
    const { started, run, finish } = controlledTasks(bulkhead)
    const first = run('a')
    const queued = run('b').catch((error: unknown) => error)
    const continuing = run('next page', { continuing: true })
    await sleep(60)
    // 'b' waited too long; the continuing task still waits, and is the next to run.
    expect(await queued).toBeInstanceOf(ServiceBusyError)
    await finish('a')
    expect(started).toEqual(['a', 'next page'])
    await finish('next page')
    expect([await first, await continuing]).toEqual(['a', 'next page'])
  })

  it('serves new and continuing tasks in the order they came: continuations starve no one', async () => {
    const bulkhead = new Bulkhead(limits({ concurrency: 1, queueLength: 1 }))
    const { started, run, finish } = controlledTasks(bulkhead)
    const runs = [run('page 1 of A'), run('page 2 of B', { continuing: true }), run('new C')]
    runs.push(run('page 2 of A', { continuing: true }))
    await sleep(0)
    for (const name of ['page 1 of A', 'page 2 of B', 'new C', 'page 2 of A']) await finish(name)
    await Promise.all(runs)
    expect(started).toEqual(['page 1 of A', 'page 2 of B', 'new C', 'page 2 of A'])
  })

  it('gives the place back when a task fails', async () => {
    const bulkhead = new Bulkhead(limits({ concurrency: 1 }))
    await expect(
      bulkhead.run(async () => {
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    expect(await bulkhead.run(async () => 'next')).toBe('next')
    expect(bulkhead.figures()).toMatchObject({ running: 0, waiting: 0 })
  })

  it('with concurrency 0, runs every task at once and refuses none', async () => {
    const bulkhead = new Bulkhead(limits({ concurrency: 0, queueLength: 0 }))
    const { started, run, finish } = controlledTasks(bulkhead)
    const names = Array.from({ length: 50 }, (_, index) => `t${index}`)
    const results = names.map((name) => run(name))
    await sleep(0)
    expect(started).toEqual(names)
    for (const name of names) await finish(name)
    expect(await Promise.all(results)).toEqual(names)
  })

  it('says Retry-After as the queue timeout in whole seconds, at least 1', () => {
    expect(new Bulkhead(limits({ queueTimeoutMs: 1 })).retryAfterSeconds).toBe(1)
    expect(new Bulkhead(limits({ queueTimeoutMs: 2500 })).retryAfterSeconds).toBe(3)
  })
})

describe('Bulkhead, shared between clients', () => {
  const A = { client: 'ip:10.0.0.1' }
  const B = { client: 'ip:10.0.0.2' }

  it('gives a freed place to the client that runs the fewest, ahead of a flood that came first', async () => {
    const bulkhead = new Bulkhead(limits({ concurrency: 2, queueLength: 4 }))
    const { started, run, finish } = controlledTasks(bulkhead)
    const flood = ['a1', 'a2', 'a3', 'a4'].map((name) => run(name, A))
    const b1 = run('b1', B)
    await sleep(0)
    expect(started).toEqual(['a1', 'a2'])
    await finish('a1')
    expect(started).toEqual(['a1', 'a2', 'b1'])
    for (const name of ['a2', 'b1', 'a3', 'a4']) await finish(name)
    await Promise.all([...flood, b1])
  })

  it('takes turns between clients that run as many, the one served longest ago first', async () => {
    const bulkhead = new Bulkhead(limits({ concurrency: 1, queueLength: 4 }))
    const { started, run, finish } = controlledTasks(bulkhead)
    const runs = ['a1', 'a2', 'a3'].map((name) => run(name, A))
    runs.push(run('b1', B), run('b2', B))
    await sleep(0)
    for (const name of ['a1', 'b1', 'a2', 'b2', 'a3']) await finish(name)
    await Promise.all(runs)
    expect(started).toEqual(['a1', 'b1', 'a2', 'b2', 'a3'])
  })

  it('makes room in a full queue by refusing the newest of the client with most waiting', async () => {
    const bulkhead = new Bulkhead(limits({ concurrency: 1, queueLength: 2, queueTimeoutMs: 2000 }))
    const { started, run, finish } = controlledTasks(bulkhead)
    const a1 = run('a1', A)
    const a2 = run('a2', A)
    const a3 = run('a3', A)
    const b1 = run('b1', B)
    await expect(a3).rejects.toMatchObject({ name: 'ServiceBusyError', retryAfterSeconds: 2 })
    await finish('a1')
    expect(started).toEqual(['a1', 'b1'])
    await finish('b1')
    await finish('a2')
    expect(await Promise.all([a1, a2, b1])).toEqual(['a1', 'a2', 'b1'])
    expect(bulkhead.figures().shed).toEqual({ 'queue-full': 1, 'queue-timeout': 0 })
  })

  it('refuses the newcomer when no client has more waiting than it would', async () => {
    const bulkhead = new Bulkhead(limits({ concurrency: 1, queueLength: 2 }))
    const { run, finish } = controlledTasks(bulkhead)
    const admitted = [run('a1', A), run('a2', A), run('b1', B)]
    await expect(run('b2', B)).rejects.toBeInstanceOf(ServiceBusyError)
    for (const name of ['a1', 'b1', 'a2']) await finish(name)
    expect(await Promise.all(admitted)).toEqual(['a1', 'a2', 'b1'])
  })

  it('remembers that a client was served when its last waiting task starts', async () => {
    const bulkhead = new Bulkhead(limits({ concurrency: 1, queueLength: 4 }))
    const { started, run, finish } = controlledTasks(bulkhead)
    const runs = [run('a1', A), run('a2', A)]
    await sleep(0)
    await finish('a1')
    runs.push(run('a3', A), run('b1', B))
    await sleep(0)
    for (const name of ['a2', 'b1', 'a3']) await finish(name)
    await Promise.all(runs)
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3'])
  })

  it('lets one client alone use every place and the whole queue', async () => {
    const bulkhead = new Bulkhead(limits({ concurrency: 2, queueLength: 2 }))
    const { started, run, finish } = controlledTasks(bulkhead)
    const admitted = ['a1', 'a2', 'a3', 'a4'].map((name) => run(name, A))
    await expect(run('a5', A)).rejects.toBeInstanceOf(ServiceBusyError)
    await sleep(0)
    expect(started).toEqual(['a1', 'a2'])
    for (const name of ['a1', 'a2', 'a3', 'a4']) await finish(name)
    expect(await Promise.all(admitted)).toEqual(['a1', 'a2', 'a3', 'a4'])
  })

  it('makes room by refusing a new task, never a continuing one', async () => {
    const bulkhead = new Bulkhead(limits({ concurrency: 1, queueLength: 1 }))
    const { started, run, finish } = controlledTasks(bulkhead)
    const a1 = run('a1', A)
    const a2 = run('a2', A)
    const a3 = run('a3', { ...A, continuing: true })
    const b1 = run('b1', B)
    await expect(a2).rejects.toBeInstanceOf(ServiceBusyError)
    for (const name of ['a1', 'b1', 'a3']) await finish(name)
    expect(await Promise.all([a1, a3, b1])).toEqual(['a1', 'a3', 'b1'])
    expect(started).toEqual(['a1', 'b1', 'a3'])
  })
})
