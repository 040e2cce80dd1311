import type { Metric, Registry } from 'prom-client'

/** The duration histogram's upper bounds, in seconds. */
export const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

interface Labels {
  readonly method: string
  readonly route: string
  readonly status: string
}

interface Series {
  readonly labels: Labels
  count: number
  sum: number
  /** Observations per bucket, not cumulative; the last one is above every bound. */
  readonly buckets: Float64Array
}

/** A sample as the registry formats it: `labels` first, then the series' own (shared) ones. */
interface Sample {
  readonly labels: Labels | { readonly le?: number | string }
  readonly sharedLabels?: Labels
  readonly value: number
  readonly metricName?: string
}

/**
 * `http_requests_total` and `http_request_duration_seconds`, by method, route template and
 * status. prom-client's own Counter and Histogram hash the label set at every call, about
 * 1.2 µs per answer (docs/performance.md); here a series is found by one string key and
 * counted in place. prom-client still formats and serves them, with the rest of the
 * registry: each is registered as an object with the `get()` the registry reads.
 */
export class RequestMetrics {
  readonly #series = new Map<string, Series>()

  constructor(registry: Registry) {
    for (const metric of [this.#counter(), this.#histogram()]) {
      // The registry reads name, help, type, get() and reset(); its types list only its own classes.
      registry.registerMetric(metric as unknown as Metric)
    }
  }

  record(method: string, route: string, statusCode: number, seconds: number): void {
    const key = `${method} ${statusCode} ${route}`
    let series = this.#series.get(key)
    if (series === undefined) {
      series = {
        labels: { method, route, status: String(statusCode) },
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

  #counter() {
    return this.#metric(
      'http_requests_total',
      'counter',
      'HTTP requests answered, by route template, method and status.',
      (series) => [{ labels: series.labels, value: series.count }],
    )
  }

  #histogram() {
    const name = 'http_request_duration_seconds'
    return this.#metric(
      name,
      'histogram',
      'Time from request to response, by route template, method and status.',
      (series) => {
        const sample = (suffix: string, value: number, le?: number | string): Sample => ({
          labels: le === undefined ? {} : { le },
          sharedLabels: series.labels,
          value,
          metricName: `${name}_${suffix}`,
        })
        let cumulative = 0
        const buckets = BUCKETS.map((bound, index) => {
          cumulative += series.buckets[index] as number
          return sample('bucket', cumulative, bound)
        })
        return [
          ...buckets,
          sample('bucket', series.count, '+Inf'),
          sample('sum', series.sum),
          sample('count', series.count),
        ]
      },
    )
  }

  #metric(name: string, type: string, help: string, samples: (series: Series) => Sample[]) {
    return {
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({
        name,
        help,
        type,
        aggregator: 'sum',
        values: [...this.#series.values()].flatMap(samples),
      }),
      reset: () => this.#series.clear(),
    }
  }
}
