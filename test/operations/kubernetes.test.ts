import { readFileSync } from 'node:fs'
import { Deployment } from 'kubernetes-models/apps/v1'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1'
import { Service } from 'kubernetes-models/v1'
import { describe, expect, it } from 'vitest'
import { parseAllDocuments } from 'yaml'
import { loadConfig, SETTINGS } from '../../src/config/settings.js'
import { imageFacts, PACKAGE_VERSION } from '../helpers/dockerfile.js'

/**
 * deploy/kubernetes.yaml cannot run here (no cluster): each object is checked against
 * the Kubernetes API's JSON schemas (kubernetes-models), and what it says about the
 * service against the service itself: real settings that the service accepts, probes on
 * its health paths, a grace period longer than the drain and the shutdown timeout; and
 * what it says about the image against the Dockerfile: its name, user, port and health
 * check (container.test.ts runs that image the way this manifest does).
 */

const MANIFEST = new URL('../../deploy/kubernetes.yaml', import.meta.url)

interface Manifest {
  readonly apiVersion: string
  readonly kind: string
  readonly metadata: { readonly name: string }
  readonly spec: Record<string, unknown>
}

const objects = parseAllDocuments(readFileSync(MANIFEST, 'utf8')).map(
  (document) => document.toJSON() as Manifest,
)
const byKind = (kind: string) => objects.find((object) => object.kind === kind) as Manifest

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1 Deployment': Deployment,
  'v1 Service': Service,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
}

interface Probe {
  readonly httpGet: { readonly path: string; readonly port: string }
  readonly periodSeconds: number
  readonly failureThreshold: number
}

interface Container {
  readonly image: string
  readonly ports: { readonly name: string; readonly containerPort: number }[]
  readonly env: { readonly name: string; readonly value?: string; readonly valueFrom?: object }[]
  readonly readinessProbe: Probe
  readonly livenessProbe: Probe
  readonly startupProbe: Probe
  readonly resources: { readonly requests?: object; readonly limits?: object }
  readonly securityContext: Record<string, unknown>
}

const deployment = byKind('Deployment')
const podSpec = (deployment.spec.template as { spec: Record<string, unknown> }).spec
const container = (podSpec.containers as Container[])[0] as Container
const settings = Object.fromEntries(
  container.env.flatMap(({ name, value }) => (value === undefined ? [] : [[name, value]])),
)

describe('deploy/kubernetes.yaml', () => {
  it('holds a Deployment, a Service and a PodDisruptionBudget the API schemas accept', () => {
    expect(objects.map(({ apiVersion, kind }) => `${apiVersion} ${kind}`).sort()).toEqual(
      Object.keys(MODELS).sort(),
    )
    for (const object of objects) {
      const Model = MODELS[`${object.apiVersion} ${object.kind}`]
      expect(Model, object.kind).toBeDefined()
      expect(() =>
        new (Model as NonNullable<typeof Model>)(object as never).validate(),
      ).not.toThrow()
    }
  })

  it('refuses a copy with a mistake, so the schema check can fail', () => {
    const broken = structuredClone(deployment) as unknown as {
      spec: { template: { spec: { containers: { ports: { containerPort: unknown }[] }[] } } }
    }
    const port = broken.spec.template.spec.containers[0]?.ports[0]
    if (port) port.containerPort = 'http'
    expect(() => new Deployment(broken as never).validate()).toThrow(/containerPort/)
  })

  it('sets only settings the service has, with values it accepts', () => {
    const names = new Set(Object.values(SETTINGS).map((setting) => setting.name))
    for (const { name } of container.env) expect(names, name).toContain(name)
    expect(() => loadConfig(settings)).not.toThrow()
  })

  it('probes the health paths on the container port: ready for traffic, live for restarts', () => {
    expect(container.readinessProbe.httpGet).toEqual({ path: '/health/ready', port: 'http' })
    expect(container.livenessProbe.httpGet).toEqual({ path: '/health/live', port: 'http' })
    expect(container.ports).toEqual([{ name: 'http', containerPort: 8080 }])
    expect(loadConfig(settings).port).toBe(8080)
    expect(container.resources.requests).toBeDefined()
    expect(container.resources.limits).toBeDefined()
  })

  it('gives a stop longer than its drain and its timeout, and drains longer than readiness takes to fail', () => {
    const config = loadConfig(settings)
    const graceMs = (podSpec.terminationGracePeriodSeconds as number) * 1000
    expect(config.shutdownDrainMs).toBeGreaterThan(0)
    expect(graceMs).toBeGreaterThan(config.shutdownDrainMs + config.shutdownTimeoutMs)
    const { periodSeconds, failureThreshold } = container.readinessProbe
    expect(config.shutdownDrainMs).toBeGreaterThan(periodSeconds * failureThreshold * 1000)
  })

  it('selects the Deployment’s pods from the Service and the PodDisruptionBudget', () => {
    const labels = (deployment.spec.template as { metadata: { labels: Record<string, string> } })
      .metadata.labels
    expect(byKind('Service').spec.selector).toEqual(labels)
    expect(
      (byKind('PodDisruptionBudget').spec.selector as { matchLabels: unknown }).matchLabels,
    ).toEqual(labels)
    expect((byKind('Service').spec.ports as { targetPort: string }[])[0]?.targetPort).toBe('http')
  })

  it('runs the Dockerfile’s image as its user, on its port, probed where its HEALTHCHECK asks', () => {
    const image = imageFacts()
    const [, name, tag] = /^(?:.+\/)?([^/:]+):([^/:]+)$/.exec(container.image) ?? []
    expect(name).toBe(image.labels['org.opencontainers.image.title'])
    expect(tag).toBe(PACKAGE_VERSION)

    expect(image.uid).not.toBe(0)
    expect(container.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: image.uid,
      runAsGroup: image.gid,
      readOnlyRootFilesystem: true,
    })
    expect(container.ports[0]?.containerPort).toBe(image.port)
    expect(settings.PORT).toBe(String(image.port))
    expect(container.livenessProbe.httpGet.path).toBe(image.healthPath)
    expect(container.startupProbe.httpGet.path).toBe(image.healthPath)
  })

  it('needs no volume: PostgreSQL keeps the data, and the read-only root holds no SQLite file', () => {
    const databaseUrl = container.env.find(({ name }) => name === 'DATABASE_URL')
    expect(databaseUrl?.valueFrom).toBeDefined()
    expect(podSpec.volumes).toBeUndefined()
  })
})
