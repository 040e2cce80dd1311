import { executionAsyncResource } from 'node:async_hooks'

/** The one entry held: while it lives, so does the hidden class every entry shares. */
let held: object | undefined
/** The hold was asked for: its tick is scheduled, or has run. */
let asked = false

/**
 * Keeps `process.nextTick` on V8's fast path for the life of the process. Each call makes
 * an entry of Node's tick queue, an object literal whose hidden class V8 creates on first
 * use; when a full collection finds no entry alive, which a busy start (schemas compiled
 * by the hundred) all but guarantees, that class is collected, and the literal's site
 * never takes its fast path again: every later call goes through V8's runtime
 * (`node bench/next-tick-shape.mjs` shows it on the Node at hand). Node's streams and HTTP call it some
 * ten times per request. The entry of one call, held from the start, keeps the class
 * alive; `executionAsyncResource()` is the public way to reach it (inside a tick
 * callback, the current resource is the tick's entry). Call first thing, before any load.
 */
export function holdNextTickShape(): void {
  if (asked) return
  asked = true
  process.nextTick(() => {
    held = executionAsyncResource()
  })
}

/** The entry held, once the tick has run (for the test that it is a tick's entry). */
export function heldNextTickEntry(): object | undefined {
  return held
}
