import type { SettingsTable } from './setting-table.js'

/** The settings as text for `--help`: one row per setting, in the table's order. */
export function describeTable(table: SettingsTable): string {
  const settings = Object.values(table)
  const width = Math.max(...settings.map((setting) => setting.name.length))
  const rows = settings.map(
    (setting) =>
      `  ${setting.name.padEnd(width)} ${(setting.default === '' ? '(unset)' : setting.default).padEnd(10)} ${setting.description}`,
  )
  return [
    'Settings (environment variables):',
    `  ${'NAME'.padEnd(width)} ${'DEFAULT'.padEnd(10)} MEANING`,
    ...rows,
  ].join('\n')
}
