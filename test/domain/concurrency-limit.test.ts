import { describe, expect, it } from 'vitest'
import { ConcurrencyLimit } from '../../src/domain/common/concurrency-limit.js'

/** Lets every started task and hand-over run (a hand-over may wait for the next turn). */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 3; turn += 1) await new Promise((resolve) => setImmediate(resolve))
}

describe('ConcurrencyLimit', () => {
  it('runs at most `limit` tasks at once, the others in the order they came', async () => {
    const limit = new ConcurrencyLimit(2)
    const started: number[] = []
    let running = 0
    let most = 0
    const finishers: (() => void)[] = []
    const runs = Array.from({ length: 5 }, (_, index) =>
      limit.run(async () => {
        started.push(index)
        running += 1
        most = Math.max(most, running)
        await new Promise<void>((resolve) => finishers.push(resolve))
        running -= 1
        return index
      }),
    )
    await settle()
    expect(started).toEqual([0, 1])
    for (let done = 0; done < 5; done += 1) {
      finishers.shift()?.()
      await settle()
    }
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4])
    expect(started).toEqual([0, 1, 2, 3, 4])
    expect(most).toBe(2)
  })

  it('starts the next task at once, or on a later turn once a turn has run long', async () => {
    const limit = new ConcurrencyLimit(1, 5)
    const order: string[] = []
    const busy = (name: string, ms: number) =>
      limit.run(async () => {
        order.push(name)
        const until = performance.now() + ms
        while (performance.now() < until) {
          // a task without I/O, keeping the event loop busy
        }
      })
    const first = busy('first', 0)
    const second = busy('second', 6)
    const third = busy('third', 0)
    setImmediate(() => order.push('another turn'))
    await Promise.all([first, second, third])
    expect(order).toEqual(['first', 'second', 'another turn', 'third'])
  })

  it('gives the place back when a task fails', async () => {
    const limit = new ConcurrencyLimit(1)
    await expect(limit.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(await limit.run(async () => 'next')).toBe('next')
  })
})
