/**
 * The rows of the results table: each scenario's figures compared round by round with
 * its reference's, against its targets; and the table as Markdown.
 */
import type { Figure, Sample } from './measure-load.js'
import { median } from './processes.js'
import type { Scenario, Target } from './scenarios.js'

export interface Row {
  readonly scenario: string
  readonly reference: string
  readonly figure: Figure
  readonly referenceValue: number
  readonly oursValue: number
  /**
   * ours / reference, or for an `overBy` target ours - reference: the median of the
   * rounds' own comparisons, except for memory (below).
   */
  readonly comparison: number
  /** Each round's comparison: ours against the reference measured just before it. */
  readonly byRound: readonly number[]
  readonly target: string
  readonly met: boolean | null
  readonly ours: { reqPerSec: number; p50: number; p99: number }
}

const valuesOf = (samples: readonly Sample[], figure: Figure) =>
  samples.map((sample) => sample[figure as keyof Sample] ?? Number.NaN)

/** The worst of the rounds for memory (its peak), the median for everything else. */
function figureOf(samples: readonly Sample[], figure: Figure): number {
  const values = valuesOf(samples, figure)
  return figure === 'peakRssMb' ? Math.max(...values) : median(values)
}

/**
 * Each round measures the reference and then ours, seconds apart, and this machine's
 * speed drifts within minutes (docs/performance.md): a ratio (or a
 * difference) is taken within each round, and a row gives their median. The ratio of
 * the two sides' medians could pair the reference's fast round with ours' slow one.
 */
export function paired(
  of: readonly number[],
  against: readonly number[],
  difference = false,
): { comparison: number; byRound: number[] } {
  const byRound = of.map((value, round) => {
    const reference = against[round] ?? Number.NaN
    return difference ? value - reference : value / reference
  })
  return { comparison: median(byRound), byRound }
}

export function rowsOf(scenario: Scenario, references: Sample[], ours: Sample[]): Row[] {
  const targets: readonly (Target | undefined)[] = scenario.targets ?? [undefined]
  return targets.map((target) => {
    const figure = target?.figure ?? 'reqPerSec'
    const referenceValue = figureOf(references, figure)
    const oursValue = figureOf(ours, figure)
    const difference = target?.overBy !== undefined
    const { comparison: ofRounds, byRound } = paired(
      valuesOf(ours, figure),
      valuesOf(references, figure),
      difference,
    )
    // Memory: the worst peak of ours against the worst of the reference's, whatever rounds.
    const worst = () => paired([oursValue], [referenceValue], difference).comparison
    const comparison = figure === 'peakRssMb' ? worst() : ofRounds
    const { min, max, overBy } = target ?? {}
    return {
      scenario: scenario.name,
      reference: scenario.reference,
      figure,
      referenceValue,
      oursValue,
      comparison,
      byRound,
      target:
        overBy !== undefined
          ? `<= +${overBy} MB`
          : min !== undefined
            ? `>= ${min}`
            : max !== undefined
              ? `<= ${max}`
              : '',
      met:
        overBy !== undefined
          ? comparison <= overBy
          : min !== undefined
            ? comparison >= min
            : max !== undefined
              ? comparison <= max
              : null,
      ours: {
        reqPerSec: median(ours.map((sample) => sample.reqPerSec)),
        p50: median(ours.map((sample) => sample.p50)),
        p99: median(ours.map((sample) => sample.p99)),
      },
    }
  })
}

const FIGURE_NAMES: Record<Figure, string> = {
  reqPerSec: 'req/s',
  p99: 'p99 ms',
  cpuUsPerRequest: 'CPU µs/req',
  peakRssMb: 'peak RSS MB',
  ms: 'ms',
}

export function printTable(rows: Row[]): string {
  const format = (value: number) =>
    value >= 100 ? Math.round(value).toLocaleString('en') : value.toFixed(2)
  const compared = (row: Row, value: number) =>
    row.target.includes('MB') ? `${value >= 0 ? '+' : ''}${value.toFixed(0)} MB` : value.toFixed(2)
  const lines = [
    '| Scenario | Reference | Figure | Reference | Ours | Ratio | By round | Target | Met | Ours p50 / p99 ms |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.scenario} | ${row.reference} | ${FIGURE_NAMES[row.figure]} | ${format(row.referenceValue)} | ` +
        `${format(row.oursValue)} | ${compared(row, row.comparison)} | ` +
        `${row.byRound.map((value) => compared(row, value)).join(', ')} | ` +
        `${row.target} | ${row.met === null ? '' : row.met ? 'yes' : 'NO'} | ` +
        `${row.ours.p50.toFixed(2)} / ${row.ours.p99.toFixed(2)} |`,
    ),
  ]
  return lines.join('\n')
}
