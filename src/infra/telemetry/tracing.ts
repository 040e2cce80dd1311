export interface Tracing {
  /**
   * Sends the spans still buffered, then stops; false when the collector did not take
   * them within SHUTDOWN_EXPORT_MS (they are dropped).
   */
  shutdown(): Promise<boolean>
}

/**
 * Milliseconds the last spans get to reach the collector when the service stops. The
 * exporter's own timeout (OTEL_EXPORTER_OTLP_TIMEOUT) counts only silence: a collector
 * that answers a byte at a time holds an export for ever, and a stop with it.
 */
export const SHUTDOWN_EXPORT_MS = 3_000

/**
 * The OpenTelemetry Node SDK, configured entirely by the standard OTEL_* variables
 * (exporter and endpoint, protocol, service name and resource, sampler, propagators:
 * W3C trace context by default). It patches no module: the service is one bundle, which
 * monkey-patching cannot reach, so spans come from @fastify/otel (requests), the traced
 * Kysely dialect (queries) and the password hash itself.
 */
export async function startTracing(): Promise<Tracing> {
  // Loaded only when tracing is on: otherwise it would only slow the start.
  const { NodeSDK } = await import('@opentelemetry/sdk-node')
  const sdk = new NodeSDK({ instrumentations: [] })
  sdk.start()
  return { shutdown: () => settlesWithin(sdk.shutdown(), SHUTDOWN_EXPORT_MS) }
}

/** True once `work` has settled, or false if it has not within `timeoutMs`. */
function settlesWithin(work: Promise<void>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const givenUp = new Promise<boolean>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, false)
  })
  return Promise.race([work.then(() => true), givenUp]).finally(() => clearTimeout(timer))
}
