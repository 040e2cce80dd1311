/** The duration histogram's upper bounds, in seconds. */
export const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

const TOTAL = 'http_requests_total'
const DURATION = 'http_request_duration_seconds'

interface Series {
  /** The series' labels as written in the exposition: `method="GET",route="…",status="200"`. */
  readonly labels: string
  count: number
  sum: number
  /** Answers per bucket, not cumulative; the last one is above every bound. */
  readonly buckets: Float64Array
}

/** A label value as the Prometheus text format writes it. */
const escaped = (value: string) =>
  value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')

/**
 * `http_requests_total` and `http_request_duration_seconds`, by method, route template
 * (never the raw URL, so ids do not explode the label set) and status.
 *
 * Counted in place and written out in the Prometheus text format (version 0.0.4, that of
 * prom-client's registry, beside whose output /metrics serves it). prom-client's own
 * Counter and Histogram hash the label set at every call; counting in place saves more
 * of a GET by id's CPU than a hand-written copy must earn (bench:compare measures it).
 */
export class RequestMetrics {
  readonly #series = new Map<string, Series>()

  record(method: string, route: string, statusCode: number, seconds: number): void {
    const key = `${method} ${statusCode} ${route}`
    let series = this.#series.get(key)
    if (series === undefined) {
      series = {
        labels: `method="${escaped(method)}",route="${escaped(route)}",status="${statusCode}"`,
        count: 0,
        sum: 0,
        buckets: new Float64Array(BUCKETS.length + 1),
      }
      this.#series.set(key, series)
    }
    series.count += 1
    series.sum += seconds
    let bucket = 0
    while (bucket < BUCKETS.length && seconds > (BUCKETS[bucket] as number)) bucket += 1
    ;(series.buckets[bucket] as number) += 1
  }

  /**
   * Both families in the Prometheus text format, as prom-client's registry writes its
   * Counter and Histogram (test/operations/metrics-exposition.test.ts compares the two):
   * the families apart by an empty line, the text ending in a line break.
   */
  exposition(): string {
    const all = [...this.#series.values()]
    const counter = [
      `# HELP ${TOTAL} HTTP requests answered, by route template, method and status.`,
      `# TYPE ${TOTAL} counter`,
      ...all.map(({ labels, count }) => `${TOTAL}{${labels}} ${count}`),
    ]
    const histogram = [
      `# HELP ${DURATION} Time from request to response, by route template, method and status.`,
      `# TYPE ${DURATION} histogram`,
    ]
    for (const { labels, count, sum, buckets } of all) {
      let cumulative = 0
      BUCKETS.forEach((bound, index) => {
        cumulative += buckets[index] as number
        histogram.push(`${DURATION}_bucket{le="${bound}",${labels}} ${cumulative}`)
      })
      histogram.push(`${DURATION}_bucket{le="+Inf",${labels}} ${count}`)
      histogram.push(`${DURATION}_sum{${labels}} ${sum}`)
      histogram.push(`${DURATION}_count{${labels}} ${count}`)
    }
    return `${counter.join('\n')}\n\n${histogram.join('\n')}\n`
  }
}
