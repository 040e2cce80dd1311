/**
 * What a table of settings is, the Config type it derives, and how it is read. The table
 * itself is in settings.ts; this file knows none of its entries, so that a setting added
 * there reaches Config, --help and the docs test without an edit here.
 */

/** Settings the service cannot start with: the message names them and says what they must be. */
export class ConfigError extends Error {}

/** The environment the settings are read from. */
export type Env = Readonly<Record<string, string | undefined>>

/** One environment variable: its default (as the variable's text) and what it parses to. */
export interface Setting<T> {
  readonly name: string
  /** '' is shown as unset: the parser decides what an empty value means. */
  readonly default: string
  readonly description: string
  /**
   * The value may hold a secret (a URL's password, a token): it is never printed, valid or
   * not, so that a mistyped setting cannot put a password in a terminal or a log.
   */
  readonly secret?: true
  /** Throws a ConfigError saying what the value must be. */
  readonly parse: (raw: string) => T
}

export type SettingsTable = Readonly<Record<string, Setting<unknown>>>

/** What each setting of a table parses to, under its key in the table. */
export type ValuesOf<Table extends SettingsTable> = {
  readonly [Key in keyof Table]: ReturnType<Table[Key]['parse']>
}

/**
 * A field of Config made from several settings (or from one and another it is checked
 * against): `compose` builds it from every parsed value, and the settings of `from` are
 * then no field of Config themselves. It may take the name of one of them.
 */
export interface Composition<Values, Key extends keyof Values, T> {
  readonly from: readonly Key[]
  readonly compose: (values: Values, env: Env) => T
}

/** The composed fields of a table's Config, by name. */
export type CompositionsOf<Table extends SettingsTable> = Readonly<
  Record<string, Composition<ValuesOf<Table>, Extract<keyof Table, string>, unknown>>
>

/** The settings that Config holds only inside a composed field. */
type Folded<Composed extends Readonly<Record<string, { readonly from: readonly unknown[] }>>> =
  Composed[keyof Composed]['from'][number]

/**
 * The settings read: one field per setting of the table, under its key, but for those
 * folded into a composed field; and one field per composition.
 */
export type ConfigOf<
  Table extends SettingsTable,
  Composed extends CompositionsOf<Table>,
> = Readonly<
  Omit<ValuesOf<Table>, Folded<Composed>> & {
    readonly [Field in keyof Composed]: ReturnType<Composed[Field]['compose']>
  }
>

/**
 * The compositions, or never when one takes the name of a setting that it does not fold
 * (that name would be two fields at once), so that readTable refuses them.
 */
type Distinct<Table extends SettingsTable, Composed extends CompositionsOf<Table>> = [
  Exclude<keyof Composed & keyof Table, Folded<Composed>>,
] extends [never]
  ? Composed
  : never

/** The variable's value, or the setting's default when it is not set. */
function readSetting<T>(setting: Setting<T>, env: Env): T {
  const raw = env[setting.name] ?? setting.default
  try {
    return setting.parse(raw)
  } catch (error) {
    const reason = error instanceof ConfigError ? error.message : String(error)
    const shown = setting.secret
      ? ' (its value is not shown: it may hold a secret)'
      : `=${JSON.stringify(raw)}`
    throw new ConfigError(`Invalid setting ${setting.name}${shown}: ${reason}`)
  }
}

/**
 * Parses every setting in the table's order, then composes the composed fields. The
 * fields come in the table's order, a composed one where its first setting is.
 */
export function readTable<Table extends SettingsTable, Composed extends CompositionsOf<Table>>(
  table: Table,
  composed: Composed & Distinct<Table, Composed>,
  env: Env,
): ConfigOf<Table, Composed> {
  const parsed: Record<string, unknown> = {}
  for (const [key, setting] of Object.entries(table)) parsed[key] = readSetting(setting, env)
  // Each key of the table now holds what its setting parses to.
  const values = parsed as ValuesOf<Table>
  const fieldOf = new Map<string, string>()
  for (const [field, composition] of Object.entries(composed)) {
    for (const key of composition.from) fieldOf.set(key, field)
  }
  const config: Record<string, unknown> = {}
  for (const key of Object.keys(table)) {
    const field = fieldOf.get(key)
    if (field === undefined) config[key] = parsed[key]
    else if (!(field in config)) config[field] = composed[field]?.compose(values, env)
  }
  for (const [field, composition] of Object.entries(composed)) {
    if (!(field in config)) config[field] = composition.compose(values, env)
  }
  // The loops above give each key of the table, folded or not, its field of ConfigOf.
  return Object.freeze(config) as ConfigOf<Table, Composed>
}
