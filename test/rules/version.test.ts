import { describe, expect, it } from 'vitest'
import { OptimisticLockError, PreconditionFailedError } from '../../src/domain/common/errors.js'
import {
  type VersionCondition,
  writeWhilePreconditionHolds,
} from '../../src/domain/common/version.js'

/** A stored version that another writer bumps whenever `interfere` says so. */
function contested(interferences: number) {
  let version = 1
  let left = interferences
  const writes: number[] = []
  return {
    writes,
    read: async () => version,
    write: async (seen: number) => {
      if (left > 0) {
        left -= 1
        version += 1 // another request got there between our read and our write
        return undefined
      }
      writes.push(seen)
      version += 1
      return `wrote over ${seen}`
    },
  }
}

const ANY: VersionCondition = { matches: () => true }
const exactly = (expected: number): VersionCondition => ({ matches: (v) => v === expected })

describe('writeWhilePreconditionHolds', () => {
  it('writes once when nothing interferes', async () => {
    const store = contested(0)
    expect(await writeWhilePreconditionHolds(exactly(1), store.read, (v) => v, store.write)).toBe(
      'wrote over 1',
    )
  })

  it('fails a named version once another write changed it (412)', async () => {
    const store = contested(1)
    await expect(
      writeWhilePreconditionHolds(exactly(1), store.read, (v) => v, store.write),
    ).rejects.toBeInstanceOf(PreconditionFailedError)
    expect(store.writes).toEqual([])
  })

  it('writes on the new state for If-Match: *, which a concurrent change does not fail', async () => {
    const store = contested(2)
    expect(await writeWhilePreconditionHolds(ANY, store.read, (v) => v, store.write)).toBe(
      'wrote over 3',
    )
  })

  it('gives up with 409 when it keeps losing', async () => {
    const store = contested(100)
    await expect(
      writeWhilePreconditionHolds(ANY, store.read, (v) => v, store.write),
    ).rejects.toBeInstanceOf(OptimisticLockError)
  })

  it('lets the read report a resource that is gone', async () => {
    const gone = new Error('not found')
    await expect(
      writeWhilePreconditionHolds(
        ANY,
        () => Promise.reject(gone),
        (v: number) => v,
        async () => 'never',
      ),
    ).rejects.toBe(gone)
  })
})
