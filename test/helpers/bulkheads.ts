import { Bulkhead } from '../../src/infra/work/bulkhead.js'

/** A bulkhead that admits everything at once: for tests about anything but admission. */
export function unbounded(): Bulkhead {
  return new Bulkhead({ concurrency: 0, queueLength: 0, queueTimeoutMs: 1 })
}
