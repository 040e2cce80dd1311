import { NODE_ENVIRONMENT } from '../scripts/node-flags.mjs'
import type { Dataset } from './datasets.js'
import { median, start } from './processes.js'
import { paired, type Row } from './results.js'
import { ROUNDS } from './run-options.js'
import { databaseUrlOf, SERVICE_COMMAND } from './service.js'

/**
 * Spawn to the first 200 of GET a Todo, the median of at least 5 rounds, each round
 * starting every server once: a bare Fastify server, `node dist/server.js`, and `npm
 * start` on this built clone (which must not build again).
 */
export async function coldStarts(small: Dataset): Promise<Row[]> {
  const env = { DATABASE_URL: databaseUrlOf(small.config), LOG_LEVEL: 'info' }
  const ready = `/api/v1/todos/${small.todoId}`
  const starts = {
    bare: () => start('bench/references/bare-fastify.mjs', {}, '/'),
    node: () => start(SERVICE_COMMAND, { ...NODE_ENVIRONMENT, ...env }, ready),
    npm: () => start(['npm', 'start', '--silent'], env, ready),
  }
  const times: Record<keyof typeof starts, number[]> = { bare: [], node: [], npm: [] }
  for (let round = 0; round < Math.max(ROUNDS, 5); round += 1) {
    for (const [name, startOne] of Object.entries(starts)) {
      const running = await startOne()
      times[name as keyof typeof starts].push(running.startupMs)
      running.stop()
    }
  }
  const row = (scenario: string, reference: string, of: number[], against: number[]): Row => {
    const referenceValue = median(against)
    const oursValue = median(of)
    const { comparison, byRound } = paired(of, against)
    return {
      scenario,
      reference,
      figure: 'ms',
      referenceValue,
      oursValue,
      comparison,
      byRound,
      target: '<= 1.2',
      met: comparison <= 1.2,
      ours: { reqPerSec: 0, p50: oursValue, p99: Math.max(...of) },
    }
  }
  return [
    row(
      'Cold start to the first 200, existing database',
      'bare Fastify server',
      times.node,
      times.bare,
    ),
    row(
      'Cold start through `npm start` on a built clone',
      '`node dist/server.js`',
      times.npm,
      times.node,
    ),
  ]
}
