/**
 * PostgreSQL run-time settings the service gives its sessions (`statement_timeout`, and
 * any `-c name=value` from the URL's `options`, such as `search_path`). A direct
 * connection sends them once at connect; behind a transaction pooler they are set again
 * in every transaction (transaction-pooling.ts).
 */
export type SessionSettings = Readonly<Record<string, string>>

export class InvalidServerOptionsError extends Error {}

const SETTING_NAME = /^[a-z_][a-z0-9_.]*$/i

/** Splits libpq's `options` on unescaped whitespace (a backslash escapes the next character). */
function words(text: string): string[] {
  const found: string[] = []
  let current = ''
  let escaped = false
  for (const char of text) {
    if (escaped) {
      current += char
      escaped = false
    } else if (char === '\\') {
      escaped = true
    } else if (/\s/.test(char)) {
      if (current !== '') found.push(current)
      current = ''
    } else {
      current += char
    }
  }
  if (current !== '') found.push(current)
  return found
}

/**
 * The settings in libpq's `options` (`-c name=value`, `-cname=value` or `--name=value`).
 * Anything else is refused rather than silently dropped.
 */
export function parseServerOptions(options: string): SessionSettings {
  const settings: Record<string, string> = {}
  const list = words(options)
  for (let index = 0; index < list.length; index += 1) {
    const word = list[index] as string
    let assignment: string | undefined
    if (word === '-c') {
      index += 1
      assignment = list[index]
    } else if (word.startsWith('-c')) {
      assignment = word.slice(2)
    } else if (word.startsWith('--')) {
      assignment = word.slice(2)
    }
    const equals = assignment?.indexOf('=') ?? -1
    const name = assignment?.slice(0, equals).replaceAll('-', '_') ?? ''
    if (assignment === undefined || equals < 1 || !SETTING_NAME.test(name)) {
      throw new InvalidServerOptionsError(
        `options must be -c name=value settings; cannot use ${JSON.stringify(word)}`,
      )
    }
    settings[name] = (assignment as string).slice(equals + 1)
  }
  return settings
}

const literal = (value: string) => `'${value.replaceAll("'", "''")}'`

/** One statement that sets every setting for the current transaction only. */
export function setLocally(settings: SessionSettings): string {
  const calls = Object.entries(settings).map(
    ([name, value]) => `set_config(${literal(name)}, ${literal(value)}, true)`,
  )
  return `select ${calls.join(', ')}`
}
