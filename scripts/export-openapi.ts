/**
 * `tsx scripts/export-openapi.ts [OUT]`: the OpenAPI document the service serves at
 * GET /api/v1/openapi.json, written to OUT (default clients/typescript/openapi.json)
 * as JSON with a 2-space indent and a trailing newline.
 *
 * The app is built by the production factory (src/app.ts) with the environment's
 * configuration, on a throwaway SQLite database in a temporary directory that is
 * removed afterwards, with logging off; nothing listens on a port.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config/settings.js'

const DEFAULT_OUT = 'clients/typescript/openapi.json'

/** The document as the server serves it, from an app built on a throwaway database. */
export async function exportOpenApi(settings: Record<string, string> = {}): Promise<unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-export-'))
  try {
    const config = {
      ...loadConfig({ ...process.env, ...settings, LOG_LEVEL: 'silent', LOG_PRETTY: 'false' }),
      database: { kind: 'sqlite', file: join(dir, 'api.sqlite') } as const,
    }
    const app = await buildApp(config)
    try {
      await app.ready()
      return app.swagger()
    } finally {
      await app.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The document as written to a file: 2-space JSON with a trailing newline. */
export function documentText(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`
}

/** Writes the document to `out` (directories created as needed); returns the absolute path. */
export async function writeOpenApi(
  out: string = DEFAULT_OUT,
  settings: Record<string, string> = {},
): Promise<string> {
  const document = await exportOpenApi(settings)
  const path = resolve(out)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, documentText(document))
  return path
}

const invokedDirectly =
  process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)
if (invokedDirectly) {
  try {
    await writeOpenApi(process.argv[2] ?? DEFAULT_OUT)
  } catch (error) {
    console.error('export-openapi: could not build the document:', error)
    process.exitCode = 1
  }
}
