import { describe, expect, it } from 'vitest'
import { heldNextTickEntry, holdNextTickShape } from '../../src/infra/runtime/next-tick-shape.js'

/**
 * server.ts holds one entry of Node's tick queue for the life of the process, so that
 * the entries' hidden class outlives every full collection (next-tick-shape.ts says why;
 * docs/performance.md what it saves). The hold works only if what it holds is a tick's
 * own entry: were `executionAsyncResource()` to answer something else inside a tick
 * callback on some Node release, the service would silently lose the fast path.
 */
describe('the held tick entry', () => {
  it('is the entry of the tick it was taken in, made as process.nextTick makes every entry', async () => {
    holdNextTickShape()
    await new Promise((done) => process.nextTick(done))
    const entry = heldNextTickEntry() as Record<PropertyKey, unknown> | undefined

    expect(entry).toBeTypeOf('object')
    // An entry: the callback it ran, its arguments, and under symbols Node's two async ids
    // (and, from Node 24, the async context it runs in).
    expect(entry?.callback).toBeTypeOf('function')
    expect(Object.keys(entry ?? {})).toEqual(['callback', 'args'])
    expect(Object.getOwnPropertySymbols(entry ?? {}).length).toBeGreaterThanOrEqual(2)
  })

  it('is taken once, however often the hold is asked for', async () => {
    const first = heldNextTickEntry()
    holdNextTickShape()
    await new Promise((done) => process.nextTick(done))
    expect(heldNextTickEntry()).toBe(first)
  })
})
