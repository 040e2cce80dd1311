// `node bench/next-tick-shape.mjs`: what src/infra/runtime/next-tick-shape.ts
// works around, in a few lines. Each case runs in a process of its own: a few calls of
// process.nextTick, a pause, two full collections, then the cost of a call, with and
// without one tick entry held from the start.

import { executionAsyncResource } from 'node:async_hooks'
import { execFileSync } from 'node:child_process'

const CALLS = 1000
const ROUNDS = 300

async function measure(hold) {
  let held
  if (hold) {
    process.nextTick(() => {
      held = executionAsyncResource()
    })
  }
  const noop = () => {}
  for (let call = 0; call < 50; call += 1) process.nextTick(noop)
  await new Promise((done) => setTimeout(done, 10))
  globalThis.gc()
  globalThis.gc()
  let total = 0n
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = process.hrtime.bigint()
    for (let call = 0; call < CALLS; call += 1) process.nextTick(noop)
    total += process.hrtime.bigint() - started
    await new Promise((done) => setImmediate(done))
  }
  return { nsPerCall: Number(total) / (CALLS * ROUNDS), held: held !== undefined }
}

const which = process.argv[2]
if (which === 'held' || which === 'not-held') {
  console.log(JSON.stringify(await measure(which === 'held')))
} else {
  const run = (mode) =>
    JSON.parse(
      execFileSync(process.execPath, ['--expose-gc', import.meta.filename, mode], {
        encoding: 'utf8',
      }),
    )
  const without = run('not-held')
  const withHold = run('held')
  console.log(`process.nextTick after two full collections, ${process.version}:`)
  console.log(`  no entry held:  ${without.nsPerCall.toFixed(0)} ns a call`)
  console.log(`  one entry held: ${withHold.nsPerCall.toFixed(0)} ns a call`)
}
