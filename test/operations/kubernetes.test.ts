import { readFileSync } from 'node:fs'
import { Deployment } from 'kubernetes-models/apps/v1'
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1'
import { Service } from 'kubernetes-models/v1'
import { describe, expect, it } from 'vitest'
import { parseAllDocuments } from 'yaml'
import { loadConfig, SETTINGS } from '../../src/config/settings.js'
import { imageFacts, PACKAGE_VERSION } from '../helpers/dockerfile.js'

/**
 * deploy/kubernetes.yaml cannot run here (no cluster): each object is checked against
 * the Kubernetes API's JSON schemas (kubernetes-models), each pod against the Pod Security
 * Standards' "restricted" profile (the rules below), and what it says about the service
 * against the service itself: real settings that the service accepts, the migrations in
 * an init container, probes on its health paths, a grace period longer than the drain and
 * the shutdown timeout, a proxy trusted only where nothing else can connect; and what it
 * says about the image against the Dockerfile: its name, user, port, entry point and
 * health check (container.test.ts runs that image the way this manifest does, and
 * migrate-command.test.ts the init container's command).
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
  'networking.k8s.io/v1 NetworkPolicy': NetworkPolicy,
}

/** The parts of a pod that the checks below read, as plain JSON (a copy may be edited). */
interface SecurityContext {
  privileged?: boolean
  allowPrivilegeEscalation?: boolean
  readOnlyRootFilesystem?: boolean
  runAsNonRoot?: boolean
  runAsUser?: number
  runAsGroup?: number
  procMount?: string
  capabilities?: { add?: string[]; drop?: string[] }
  seccompProfile?: { type: string }
  appArmorProfile?: { type: string }
  seLinuxOptions?: { type?: string; user?: string; role?: string }
  windowsOptions?: { hostProcess?: boolean }
  sysctls?: { name: string; value: string }[]
}

/** A probe, or a lifecycle hook (only its handler's fields). */
interface Handler {
  httpGet?: { path?: string; port: string | number; host?: string }
  tcpSocket?: { port: string | number; host?: string }
  periodSeconds?: number
  failureThreshold?: number
}

interface EnvVar {
  readonly name: string
  readonly value?: string
  readonly valueFrom?: object
}

interface Container {
  name: string
  image: string
  command?: string[]
  args?: string[]
  restartPolicy?: string
  ports?: { name?: string; containerPort: number; hostPort?: number }[]
  env?: EnvVar[]
  readinessProbe?: Handler
  livenessProbe?: Handler
  startupProbe?: Handler
  lifecycle?: { postStart?: Handler; preStop?: Handler }
  resources?: { requests?: object; limits?: object }
  securityContext?: SecurityContext
}

interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }
  spec: {
    hostNetwork?: boolean
    hostPID?: boolean
    hostIPC?: boolean
    securityContext?: SecurityContext
    volumes?: Record<string, unknown>[]
    initContainers?: Container[]
    containers: Container[]
    ephemeralContainers?: Container[]
    terminationGracePeriodSeconds?: number
  }
}

/** The pods an object makes: a Pod's own, a workload's template, a CronJob's job's. */
function podsOf(object: Manifest): PodTemplate[] {
  const spec = object.spec as Record<string, unknown> & {
    template?: PodTemplate
    jobTemplate?: { spec: { template: PodTemplate } }
  }
  if (object.kind === 'Pod') return [object as unknown as PodTemplate]
  if (spec.jobTemplate) return [spec.jobTemplate.spec.template]
  return spec.template ? [spec.template] : []
}

function only<T>(list: readonly T[] | undefined, what: string): T {
  if (list?.length !== 1) throw new Error(`expected one ${what}, found ${list?.length ?? 0}`)
  return list[0] as T
}

const deployment = byKind('Deployment')
const pod = only(podsOf(deployment), 'pod template')
const podSpec = pod.spec
const container = only(podSpec.containers, 'container')
const migrator = only(podSpec.initContainers, 'init container')
const envOf = ({ env }: Container) => env ?? []
const settingsOf = (of: Container) =>
  Object.fromEntries(
    envOf(of).flatMap(({ name, value }) => (value === undefined ? [] : [[name, value]])),
  )
const settings = settingsOf(container)
/** A probe's httpGet, which every probe here uses. */
const getOf = (probe: Handler | undefined) => probe?.httpGet ?? { path: undefined, port: undefined }
/** A container's security context with the pod's under it, as the kubelet applies them. */
const effectiveContext = (of: Container) => ({ ...podSpec.securityContext, ...of.securityContext })

// ---- The Pod Security Standards -------------------------------------------------------
// https://kubernetes.io/docs/concepts/security/pod-security-standards/: each control of
// the "baseline" profile, then the "restricted" profile's (which includes baseline's), by
// the docs' names, as pod-security-admission (the admission controller that enforces them)
// checks a Linux pod. Its relaxations for Windows pods and for pods in a user namespace
// (hostUsers: false) are left out: the manifest relies on neither.

type Level = 'baseline' | 'restricted'

interface Rule {
  readonly level: Level
  readonly control: string
  readonly passes: (pod: PodTemplate) => boolean
}

const words = (text: string) => new Set(text.split(/\s+/))
const DEFAULT_CAPABILITIES = words(`AUDIT_WRITE CHOWN DAC_OVERRIDE FOWNER FSETID KILL MKNOD
  NET_BIND_SERVICE SETFCAP SETGID SETPCAP SETUID SYS_CHROOT`)
const SAFE_SYSCTLS = words(`kernel.shm_rmid_forced net.ipv4.ip_local_port_range
  net.ipv4.ip_unprivileged_port_start net.ipv4.tcp_syncookies net.ipv4.ping_group_range
  net.ipv4.ip_local_reserved_ports net.ipv4.tcp_keepalive_time net.ipv4.tcp_fin_timeout
  net.ipv4.tcp_keepalive_intvl net.ipv4.tcp_keepalive_probes net.ipv4.tcp_rmem net.ipv4.tcp_wmem`)
/** Besides none at all (undefined, or ''). */
const SELINUX_TYPES = words('container_t container_init_t container_kvm_t container_engine_t')
const RESTRICTED_VOLUME_TYPES = words(`configMap csi downwardAPI emptyDir ephemeral image
  persistentVolumeClaim projected secret`)
const CONFINING_PROFILES = ['RuntimeDefault', 'Localhost']
const APPARMOR_ANNOTATION = 'container.apparmor.security.beta.kubernetes.io/'

const containersOf = ({ spec }: PodTemplate) => [
  ...(spec.initContainers ?? []),
  ...spec.containers,
  ...(spec.ephemeralContainers ?? []),
]
/** The pod's security context and each container's. */
const contextsOf = (of: PodTemplate) => [
  of.spec.securityContext ?? {},
  ...containersOf(of).map(({ securityContext }) => securityContext ?? {}),
]
const everyContainer = (of: PodTemplate, passes: (context: SecurityContext) => boolean) =>
  containersOf(of).every(({ securityContext }) => passes(securityContext ?? {}))
const notTrue = (value: boolean | undefined) => value !== true
const handlersOf = ({ livenessProbe, readinessProbe, startupProbe, lifecycle }: Container) => [
  livenessProbe,
  readinessProbe,
  startupProbe,
  lifecycle?.postStart,
  lifecycle?.preStop,
]
/**
 * Whether every container has a value that `passes`, its own or, where it sets none, the
 * pod's; a pod-wide value that does not pass fails even where containers set their own.
 */
function inEveryContainer<T>(
  of: PodTemplate,
  read: (context: SecurityContext) => T | undefined,
  passes: (value: T | undefined) => boolean,
): boolean {
  const podWide = read(of.spec.securityContext ?? {})
  if (podWide !== undefined && !passes(podWide)) return false
  return everyContainer(of, (context) => passes(read(context) ?? podWide))
}
const rule = (level: Level, control: string, passes: Rule['passes']): Rule => ({
  level,
  control,
  passes,
})

const POD_SECURITY_STANDARDS: readonly Rule[] = [
  rule('baseline', 'HostProcess', (of) =>
    contextsOf(of).every(({ windowsOptions }) => notTrue(windowsOptions?.hostProcess)),
  ),
  rule('baseline', 'Host Namespaces', ({ spec }) =>
    [spec.hostNetwork, spec.hostPID, spec.hostIPC].every(notTrue),
  ),
  rule('baseline', 'Privileged Containers', (of) =>
    everyContainer(of, ({ privileged }) => notTrue(privileged)),
  ),
  rule('baseline', 'Capabilities', (of) =>
    everyContainer(of, ({ capabilities }) =>
      (capabilities?.add ?? []).every((added) => DEFAULT_CAPABILITIES.has(added)),
    ),
  ),
  rule('baseline', 'HostPath Volumes', ({ spec }) =>
    (spec.volumes ?? []).every((volume) => volume.hostPath === undefined),
  ),
  rule('baseline', 'Host Ports', (of) =>
    containersOf(of).every(({ ports }) => (ports ?? []).every(({ hostPort }) => !hostPort)),
  ),
  rule('baseline', 'Host Probes / Lifecycle Hooks', (of) =>
    containersOf(of).every((each) =>
      handlersOf(each).every((handler) => !handler?.httpGet?.host && !handler?.tcpSocket?.host),
    ),
  ),
  rule(
    'baseline',
    'AppArmor',
    (of) =>
      contextsOf(of).every(({ appArmorProfile: profile }) =>
        profile === undefined ? true : CONFINING_PROFILES.includes(profile.type),
      ) &&
      Object.entries(of.metadata?.annotations ?? {}).every(
        ([key, value]) =>
          !key.startsWith(APPARMOR_ANNOTATION) ||
          ['', 'runtime/default'].includes(value) ||
          value.startsWith('localhost/'),
      ),
  ),
  rule('baseline', 'SELinux', (of) =>
    contextsOf(of).every(({ seLinuxOptions: options }) =>
      options
        ? (!options.type || SELINUX_TYPES.has(options.type)) && !options.user && !options.role
        : true,
    ),
  ),
  rule('baseline', '/proc Mount Type', (of) =>
    everyContainer(of, ({ procMount }) => procMount === undefined || procMount === 'Default'),
  ),
  rule('baseline', 'Seccomp', (of) =>
    contextsOf(of).every(({ seccompProfile }) => seccompProfile?.type !== 'Unconfined'),
  ),
  rule('baseline', 'Sysctls', ({ spec }) =>
    (spec.securityContext?.sysctls ?? []).every(({ name }) => SAFE_SYSCTLS.has(name)),
  ),
  rule('restricted', 'Volume Types', ({ spec }) =>
    (spec.volumes ?? []).every((volume) => {
      const types = Object.keys(volume).filter((key) => key !== 'name')
      return types.length > 0 && types.every((type) => RESTRICTED_VOLUME_TYPES.has(type))
    }),
  ),
  rule('restricted', 'Privilege Escalation', (of) =>
    everyContainer(of, ({ allowPrivilegeEscalation }) => allowPrivilegeEscalation === false),
  ),
  rule('restricted', 'Running as Non-root', (of) =>
    inEveryContainer(
      of,
      ({ runAsNonRoot }) => runAsNonRoot,
      (value) => value === true,
    ),
  ),
  rule('restricted', 'Running as Non-root user', (of) =>
    contextsOf(of).every(({ runAsUser }) => runAsUser !== 0),
  ),
  rule('restricted', 'Seccomp', (of) =>
    inEveryContainer(
      of,
      ({ seccompProfile }) => seccompProfile?.type,
      (type) => type !== undefined && CONFINING_PROFILES.includes(type),
    ),
  ),
  rule('restricted', 'Capabilities', (of) =>
    everyContainer(
      of,
      ({ capabilities }) =>
        (capabilities?.drop ?? []).includes('ALL') &&
        (capabilities?.add ?? []).every((added) => added === 'NET_BIND_SERVICE'),
    ),
  ),
]

/** The controls `pod` breaks, as `level: control`; none for a pod the profile admits. */
const breaches = (of: PodTemplate) =>
  POD_SECURITY_STANDARDS.filter(({ passes }) => !passes(of)).map(
    ({ level, control }) => `${level}: ${control}`,
  )

/** Sets fields of a security context, the pod's or a container's (undefined: leaves one out). */
const securing =
  (name: 'pod' | 'api' | 'migrate', fields: SecurityContext) => (copy: PodTemplate) => {
    const target =
      name === 'pod'
        ? copy.spec
        : [...(copy.spec.initContainers ?? []), ...copy.spec.containers].find(
            (each) => each.name === name,
          )
    if (!target) throw new Error(`no container ${name}`)
    const merged: Record<string, unknown> = { ...target.securityContext, ...fields }
    for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key]
    target.securityContext = merged
  }
/** Sets fields of the pod's spec, or of each of its (main) containers. */
const inSpec = (fields: Partial<PodTemplate['spec']>) => (copy: PodTemplate) => {
  Object.assign(copy.spec, fields)
}
const inContainers = (fields: Partial<Container>) => (copy: PodTemplate) => {
  for (const each of copy.spec.containers) Object.assign(each, fields)
}

/** A copy of the manifest's pod with one thing changed, and the controls that refuse it. */
const BREACHES: readonly [string, (copy: PodTemplate) => void, string[]][] = [
  ['no seccompProfile', securing('pod', { seccompProfile: undefined }), ['restricted: Seccomp']],
  [
    'seccomp Unconfined for one container',
    securing('api', { seccompProfile: { type: 'Unconfined' } }),
    ['baseline: Seccomp', 'restricted: Seccomp'],
  ],
  [
    'a hostPath volume',
    inSpec({ volumes: [{ name: 'host', hostPath: { path: '/' } }] }),
    ['baseline: HostPath Volumes', 'restricted: Volume Types'],
  ],
  [
    'an NFS volume',
    inSpec({ volumes: [{ name: 'share', nfs: { server: 'nfs', path: '/' } }] }),
    ['restricted: Volume Types'],
  ],
  ["the node's network", inSpec({ hostNetwork: true }), ['baseline: Host Namespaces']],
  ["the node's processes", inSpec({ hostPID: true }), ['baseline: Host Namespaces']],
  [
    'a privileged init container',
    securing('migrate', { privileged: true }),
    ['baseline: Privileged Containers'],
  ],
  [
    'SYS_ADMIN added',
    securing('api', { capabilities: { drop: ['ALL'], add: ['SYS_ADMIN'] } }),
    ['baseline: Capabilities', 'restricted: Capabilities'],
  ],
  [
    'capabilities kept by the init container',
    securing('migrate', { capabilities: {} }),
    ['restricted: Capabilities'],
  ],
  [
    'privilege escalation left to its default',
    securing('migrate', { allowPrivilegeEscalation: undefined }),
    ['restricted: Privilege Escalation'],
  ],
  [
    'runAsNonRoot false for one container',
    securing('api', { runAsNonRoot: false }),
    ['restricted: Running as Non-root'],
  ],
  [
    'runAsNonRoot left out',
    securing('pod', { runAsNonRoot: undefined }),
    ['restricted: Running as Non-root'],
  ],
  ['root', securing('api', { runAsUser: 0 }), ['restricted: Running as Non-root user']],
  [
    'a host port',
    inContainers({ ports: [{ name: 'http', containerPort: 8080, hostPort: 8080 }] }),
    ['baseline: Host Ports'],
  ],
  [
    'a probe of another host',
    inContainers({ readinessProbe: { httpGet: { port: 80, host: '169.254.169.254' } } }),
    ['baseline: Host Probes / Lifecycle Hooks'],
  ],
  [
    'AppArmor unconfined',
    securing('pod', { appArmorProfile: { type: 'Unconfined' } }),
    ['baseline: AppArmor'],
  ],
  [
    'a custom SELinux user',
    securing('api', { seLinuxOptions: { user: 'system_u' } }),
    ['baseline: SELinux'],
  ],
  ['an unmasked /proc', securing('api', { procMount: 'Unmasked' }), ['baseline: /proc Mount Type']],
  [
    'an unsafe sysctl',
    securing('pod', { sysctls: [{ name: 'kernel.msgmax', value: '65536' }] }),
    ['baseline: Sysctls'],
  ],
  [
    'a Windows HostProcess container',
    securing('api', { windowsOptions: { hostProcess: true } }),
    ['baseline: HostProcess'],
  ],
]

describe('deploy/kubernetes.yaml', () => {
  it('holds a Deployment, a Service, a PodDisruptionBudget and a NetworkPolicy the API schemas accept', () => {
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

  it('sets only settings the service has, with values it accepts, in each container', () => {
    const names = new Set(Object.values(SETTINGS).map((setting) => setting.name))
    for (const each of [container, migrator]) {
      for (const { name } of envOf(each)) expect(names, `${each.name}: ${name}`).toContain(name)
      expect(() => loadConfig(settingsOf(each))).not.toThrow()
    }
  })

  it('probes the health paths on the container port: ready for traffic, live for restarts', () => {
    expect(getOf(container.readinessProbe)).toEqual({ path: '/health/ready', port: 'http' })
    expect(getOf(container.livenessProbe)).toEqual({ path: '/health/live', port: 'http' })
    expect(container.ports).toEqual([{ name: 'http', containerPort: 8080 }])
    expect(loadConfig(settings).port).toBe(8080)
    expect(container.resources?.requests).toBeDefined()
    expect(container.resources?.limits).toBeDefined()
  })

  it('gives a stop longer than its drain and its timeout, and drains longer than readiness takes to fail', () => {
    const config = loadConfig(settings)
    const graceMs = (podSpec.terminationGracePeriodSeconds as number) * 1000
    expect(config.shutdownDrainMs).toBeGreaterThan(0)
    expect(graceMs).toBeGreaterThan(config.shutdownDrainMs + config.shutdownTimeoutMs)
    const { periodSeconds = 10, failureThreshold = 3 } = container.readinessProbe ?? {}
    expect(config.shutdownDrainMs).toBeGreaterThan(periodSeconds * failureThreshold * 1000)
  })

  it('selects the Deployment’s pods from the Service and the PodDisruptionBudget', () => {
    const labels = pod.metadata?.labels
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
    for (const each of [container, migrator]) {
      expect(effectiveContext(each), each.name).toMatchObject({
        runAsNonRoot: true,
        runAsUser: image.uid,
        runAsGroup: image.gid,
        readOnlyRootFilesystem: true,
      })
    }
    expect(container.ports?.[0]?.containerPort).toBe(image.port)
    expect(settings.PORT).toBe(String(image.port))
    expect(getOf(container.livenessProbe).path).toBe(image.healthPath)
    expect(getOf(container.startupProbe).path).toBe(image.healthPath)
  })

  it('needs no volume: PostgreSQL keeps the data, and the read-only root holds no SQLite file', () => {
    const databaseUrl = envOf(container).find(({ name }) => name === 'DATABASE_URL')
    expect(databaseUrl?.valueFrom).toBeDefined()
    expect(podSpec.volumes).toBeUndefined()
  })
})

describe('deploy/kubernetes.yaml migrates before the service starts', () => {
  it('in an init container: the image’s server with its migrate command, on the app’s database', () => {
    expect(migrator.name).toBe('migrate')
    expect(migrator.image).toBe(container.image)
    // The image's entry point (node … dist/server.js), given the command as its argument.
    expect(migrator.command).toBeUndefined()
    expect(imageFacts().entrypoint.at(-1)).toBe('dist/server.js')
    expect(migrator.args).toEqual(['migrate'])
    const databaseUrl = (of: Container) => envOf(of).find(({ name }) => name === 'DATABASE_URL')
    expect(databaseUrl(migrator)).toBeDefined()
    expect(databaseUrl(migrator)).toEqual(databaseUrl(container))
    expect(migrator.resources?.limits).toEqual(container.resources?.limits)
  })

  it('which no probe cuts short: it runs to its end before the app starts', () => {
    // A sidecar (restartPolicy: Always) would run beside the app instead of before it.
    expect(migrator.restartPolicy).toBeUndefined()
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
      expect(migrator[probe], probe).toBeUndefined()
    }
    // Its statements have no timeout and it waits for another pod's migration as long as
    // that pod holds the lock (postgres/migration-lock.ts): DB_TIMEOUT, the bound on a
    // request's database work, is left as the app's.
    expect(settingsOf(migrator).DB_TIMEOUT).toBeUndefined()
    // Nor is the rollout reported failed (and rolled back by tools) while it migrates.
    expect(deployment.spec.progressDeadlineSeconds as number).toBeGreaterThanOrEqual(3600)
  })

  it('so the startup probe waits only for the process to open its port', () => {
    const { periodSeconds = 10, failureThreshold = 3 } = container.startupProbe ?? {}
    expect(periodSeconds * failureThreshold).toBeLessThanOrEqual(30)
  })

  it('with the same locked-down container as the app’s', () => {
    expect(migrator.securityContext).toEqual(container.securityContext)
    expect(migrator.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    })
  })
})

describe('deploy/kubernetes.yaml under the Pod Security Standards', () => {
  it('admits every pod under "restricted", and so under "baseline"', () => {
    const pods = objects.flatMap(podsOf)
    expect(pods.length).toBeGreaterThan(0)
    for (const each of pods) expect(breaches(each)).toEqual([])
    expect(podSpec.securityContext?.seccompProfile).toEqual({ type: 'RuntimeDefault' })
  })

  it.each(BREACHES)('refuses a copy with %s', (_, change, refusedBy) => {
    const copy = structuredClone(pod)
    change(copy)
    expect(breaches(copy)).toEqual(refusedBy)
  })

  it('has a copy refused by each of its controls, so that each can fail', () => {
    const refused = new Set(BREACHES.flatMap(([, , refusedBy]) => refusedBy))
    const controls = POD_SECURITY_STANDARDS.map(({ level, control }) => `${level}: ${control}`)
    expect([...refused].sort()).toEqual(controls.sort())
  })
})

describe('deploy/kubernetes.yaml trusts X-Forwarded-* only from the ingress', () => {
  const policy = byKind('NetworkPolicy').spec as {
    podSelector: { matchLabels: Record<string, string> }
    policyTypes: string[]
    ingress: {
      from?: { namespaceSelector?: object; podSelector?: object; ipBlock?: object }[]
      ports?: { protocol: string; port: string | number }[]
    }[]
  }

  it('admits only the ingress controller’s namespace, to the pods’ http port', () => {
    expect(policy.podSelector.matchLabels).toEqual(pod.metadata?.labels)
    expect(policy.policyTypes).toEqual(['Ingress'])
    const rule = only(policy.ingress, 'ingress rule')
    // A rule without `from` would admit every source.
    expect(rule.from).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
    ])
    const { protocol, port } = only(rule.ports, 'port')
    expect(protocol).toBe('TCP')
    const http = only(container.ports, 'container port')
    expect([http.name, http.containerPort]).toContain(port)
  })

  it('trusts the proxies by address (the pod network), never whatever hop connects', () => {
    const { trustProxy } = loadConfig(settings)
    expect(Array.isArray(trustProxy), String(trustProxy)).toBe(true)
    for (const range of trustProxy as string[]) expect(range).toMatch(/^[\d.]+\/\d+$/)
  })
})
