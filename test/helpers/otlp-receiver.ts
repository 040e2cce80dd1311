import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One span as OTLP/HTTP JSON carries it, with its attributes flattened. */
export interface ReceivedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string
  readonly name: string
  /** 1 internal, 2 server, 3 client. */
  readonly kind: number
  readonly attributes: Readonly<Record<string, string | number | boolean>>
  readonly resource: Readonly<Record<string, string | number | boolean>>
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const

/** A stand-in OpenTelemetry collector: OTLP/HTTP with JSON bodies on /v1/traces. */
export interface OtlpReceiver {
  /** The endpoint for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  readonly endpoint: string
  readonly spans: ReceivedSpan[]
  close(): Promise<void>
}

type AnyValue = {
  stringValue?: string
  intValue?: string | number
  boolValue?: boolean
  doubleValue?: number
}
type KeyValue = { key: string; value: AnyValue }

function flatten(attributes: readonly KeyValue[] = []) {
  return Object.fromEntries(
    attributes.map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
        value.boolValue ??
        value.doubleValue ??
        '',
    ]),
  ) as Record<string, string | number | boolean>
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = []
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8')
    })
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        const { resourceSpans = [] } = JSON.parse(body) as {
          resourceSpans?: {
            resource?: { attributes?: KeyValue[] }
            scopeSpans?: {
              spans?: (Omit<ReceivedSpan, 'attributes' | 'resource'> & {
                attributes?: KeyValue[]
              })[]
            }[]
          }[]
        }
        for (const { resource, scopeSpans = [] } of resourceSpans) {
          for (const { spans: received = [] } of scopeSpans) {
            for (const span of received) {
              spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                kind: span.kind,
                attributes: flatten(span.attributes),
                resource: flatten(resource?.attributes),
              })
            }
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
