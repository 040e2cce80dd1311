import { isIP } from 'node:net'
import { availableParallelism } from 'node:os'
import type { PoolerMode } from '../infra/db/database-config.js'
import { ConfigError } from './setting-table.js'

/**
 * How each kind of value in the settings table is read from its variable's text. Each
 * throws a ConfigError saying what the value must be; the table's reader adds which
 * variable held it.
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

export type LogLevel = (typeof LOG_LEVELS)[number]

export const DEFAULT_SQLITE_FILE = './data/api.sqlite'

/** Fastify's `trustProxy`: off, on for every hop, a hop count, or a list of proxy addresses. */
export type TrustProxy = boolean | number | readonly string[]

/** One of a few words, listed in the message as `a, b or c`. */
function oneOf<const Choice extends string>(choices: readonly Choice[]) {
  const listed = `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`
  return (raw: string): Choice => {
    const choice = choices.find((candidate) => candidate === raw)
    if (choice === undefined) throw new ConfigError(`must be ${listed}`)
    return choice
  }
}

/** Field names of a search page: current (`first`/`last`) or the older releases' (`firstPage`/`lastPage`). */
export const pageFormat = oneOf(['standard', 'legacy'])

export type PageFormat = ReturnType<typeof pageFormat>

export const poolerMode = oneOf<PoolerMode>(['none', 'transaction'])

export const preparedStatements = oneOf(['auto', 'on', 'off'])

export function logLevel(raw: string): LogLevel {
  const level = LOG_LEVELS.find((candidate) => candidate === raw)
  if (!level) throw new ConfigError(`must be one of ${LOG_LEVELS.join(', ')}`)
  return level
}

export function integer(min: number, max: number) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw)) throw new ConfigError(`must be a whole number from ${min} to ${max}`)
    const value = Number(raw)
    if (value < min || value > max) {
      throw new ConfigError(`must be a whole number from ${min} to ${max}`)
    }
    return value
  }
}

/**
 * Long reads at once: a number, or `auto` for the cores Node may use less one (at least
 * one), so that reads never take the core the event loop answers everyone else on. Not
 * the default: on PostgreSQL each place is a connection, which must not grow with the host.
 */
export function readConcurrency(raw: string): number {
  return raw === 'auto' ? allCoresButOne(availableParallelism()) : integer(0, 1000)(raw)
}

export function allCoresButOne(cores: number): number {
  return Math.max(1, cores - 1)
}

export function boolean(raw: string): boolean {
  if (raw !== 'true' && raw !== 'false') throw new ConfigError('must be true or false')
  return raw === 'true'
}

/** A setting whose empty value means "not set". */
export function optional<T>(parse: (raw: string) => T) {
  return (raw: string): T | undefined => (raw === '' ? undefined : parse(raw))
}

/** Any text but empty, which `optional` takes for unset. */
export const text = (raw: string): string => raw

export function hostName(raw: string): string {
  if (raw === '' || /\s/.test(raw)) throw new ConfigError('must be a host name or IP address')
  return raw
}

const ENCODE_PASSWORD =
  'percent-encode the characters of its user and password that URLs reserve (/ ? # @ : % space and others), or give the password in DATABASE_PASSWORD'

function postgresUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError(`is not a valid postgres:// URL: ${ENCODE_PASSWORD}`)
  }
  try {
    // pg decodes both; a lone % would stop every connection, not the start.
    decodeURIComponent(url.username)
    decodeURIComponent(url.password)
  } catch {
    throw new ConfigError(
      `holds a % that starts no percent-encoding (write % as %25): ${ENCODE_PASSWORD}`,
    )
  }
  return raw
}

export function databaseUrl(
  raw: string,
): { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string } {
  if (raw === '') return { kind: 'sqlite', file: DEFAULT_SQLITE_FILE }
  if (/^postgres(ql)?:\/\//.test(raw)) return { kind: 'postgres', url: postgresUrl(raw) }
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length)
    if (file === '')
      throw new ConfigError('sqlite: needs a file path, e.g. sqlite:./data/api.sqlite')
    return { kind: 'sqlite', file }
  }
  throw new ConfigError('must start with postgres://, postgresql:// or sqlite:')
}

/** A read replica is PostgreSQL's: SQLite has none. */
export function replicaUrl(raw: string): string {
  const replica = databaseUrl(raw)
  if (replica.kind !== 'postgres')
    throw new ConfigError('must start with postgres:// or postgresql://')
  return replica.url
}

export function httpUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError('is not a URL')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ConfigError('must be an http(s) URL')
  return raw
}

export function redisUrl(raw: string): string {
  if (!/^rediss?:\/\//.test(raw)) throw new ConfigError('must start with redis:// or rediss://')
  return raw
}

const WINDOWS: Readonly<Record<string, number>> = { second: 1000, minute: 60_000, hour: 3_600_000 }

export function rateLimit(raw: string): { max: number; windowMs: number } {
  const [, count, unit] = /^(\d+)\/(second|minute|hour)$/.exec(raw) ?? []
  const max = Number(count)
  if (!unit || !Number.isSafeInteger(max) || max < 1) {
    throw new ConfigError('must be N/second, N/minute or N/hour with N at least 1, e.g. 600/minute')
  }
  return { max, windowMs: WINDOWS[unit] as number }
}

export function corsOrigins(raw: string): readonly string[] {
  const origins = raw
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '')
  for (const origin of origins) {
    if (origin === '*') continue
    let parsed: URL
    try {
      parsed = new URL(origin)
    } catch {
      throw new ConfigError(`${origin} is not an origin like https://app.example.com`)
    }
    if (parsed.origin !== origin) {
      throw new ConfigError(`${origin} is not an origin (scheme://host[:port], no path)`)
    }
  }
  return origins
}

export function trustProxy(raw: string): TrustProxy {
  if (raw === 'false' || raw === '') return false
  if (raw === 'true') return true
  if (/^\d+$/.test(raw)) return integer(1, 100)(raw)
  const entries = raw.split(',').map((entry) => entry.trim())
  for (const entry of entries) {
    const [address, bits, ...rest] = entry.split('/')
    const family = isIP(address ?? '')
    const maxBits = family === 6 ? 128 : 32
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits)
    if (family === 0 || !bitsOk || rest.length > 0) {
      throw new ConfigError(
        'must be true, false, a hop count, or a comma-separated list of IP addresses or CIDR ranges',
      )
    }
  }
  return entries
}
