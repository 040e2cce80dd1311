export interface Tracing {
  /** Sends the spans still buffered, then stops. */
  shutdown(): Promise<void>
}

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
  return { shutdown: () => sdk.shutdown() }
}
