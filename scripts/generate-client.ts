/**
 * `npm run client:generate`: the typed client's generated half, from the document the
 * service serves.
 *
 *   clients/typescript/openapi.json    the document (scripts/export-openapi.ts)
 *   clients/typescript/src/schema.ts   its types (openapi-typescript)
 *
 * test/openapi/typed-client.test.ts regenerates both in memory with the same
 * functions and fails when the committed files differ, so a change to the API that is
 * not regenerated here is caught. Both files are generated: never edit them by hand
 * (biome.json leaves them alone).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript'
import { documentText, exportOpenApi } from './export-openapi.js'

export const CLIENT_DIR = 'clients/typescript'
export const DOCUMENT_FILE = `${CLIENT_DIR}/openapi.json`
export const SCHEMA_FILE = `${CLIENT_DIR}/src/schema.ts`

/**
 * The options, in one place (openapi-typescript 7): `rootTypes` with
 * `rootTypesNoSchemaPrefix` also exports every component schema under its own name
 * (`export type Member = components['schemas']['Member']`), so callers write
 * `import type { Member } from '…/schema.js'`. Unions stay unions (no `enum`), so the
 * file holds types only and erases completely. `defaultNonNullable: false`: a field is
 * optional exactly when the document does not list it as required (by default
 * openapi-typescript makes every field with a `default` required, so a TodoCreate would
 * need its ignored todoId, finished and createdAt).
 */
export const OPENAPI_TS_OPTIONS = {
  rootTypes: true,
  rootTypesNoSchemaPrefix: true,
  defaultNonNullable: false,
  silent: true,
} as const

/** schema.ts for a document, exactly as written by client:generate. */
export async function schemaText(document: unknown): Promise<string> {
  // openapi-typescript bundles (and may rewrite) the object it is given.
  const ast = await openapiTS(structuredClone(document) as OpenAPI3, OPENAPI_TS_OPTIONS)
  return `${COMMENT_HEADER}${astToString(ast)}`
}

/** Both generated files' contents, from the document the current code serves. */
export async function generateClientFiles(): Promise<{ document: string; schema: string }> {
  const document = await exportOpenApi()
  return { document: documentText(document), schema: await schemaText(document) }
}

function write(path: string, text: string): void {
  mkdirSync(dirname(resolve(path)), { recursive: true })
  writeFileSync(path, text)
}

const invokedDirectly =
  process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)
if (invokedDirectly) {
  try {
    const files = await generateClientFiles()
    write(DOCUMENT_FILE, files.document)
    write(SCHEMA_FILE, files.schema)
    console.log(`client:generate: wrote ${DOCUMENT_FILE} and ${SCHEMA_FILE}`)
  } catch (error) {
    console.error('client:generate failed:', error)
    process.exitCode = 1
  }
}
