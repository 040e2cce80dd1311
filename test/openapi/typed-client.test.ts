import { execFile } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript'
import { describe, expect, it } from 'vitest'
import { DOCUMENT_FILE, generateClientFiles, SCHEMA_FILE } from '../../scripts/generate-client.js'
import { CLIENT_SESSION, sessionRun } from '../helpers/client-session.js'
import { SQLITE_TARGET } from '../helpers/databases.js'
import { serverPerSuite } from '../helpers/server.js'

/**
 * The typed client in clients/typescript: generated from the document the code serves
 * now (not a stale copy), usable against a real server on its own, and compilable on its
 * own with `tsc --strict`.
 */

const SLOW = { timeout: 120_000 }
const ROOT = resolve(import.meta.dirname, '../..')
const CLIENT_DIR = join(ROOT, 'clients/typescript')
/** Code a user writes against the stock types: the fields they have, none they do not. */
const NATURAL_SESSION = `import type { components } from './stock-schema.js'

type TodoCreate = components['schemas']['TodoCreate']
type MemberCreate = components['schemas']['MemberCreate']
type MemberUpdate = components['schemas']['MemberUpdate']

const firstName = 'Taro'
const lastName = 'Yamada'
const genderCode = '1'
const dateOfBirth = '1990-04-01'
const emailAddress = 'taro@example.org'
const telephoneNumber = '090-1234-5678'
const password = 'correct-horse'

export const todo: TodoCreate = { todoTitle: 'x' }
export const member: MemberCreate = {
  firstName,
  lastName,
  genderCode,
  dateOfBirth,
  emailAddress,
  telephoneNumber,
  credential: { signId: '', password },
}
export const update: MemberUpdate = {
  memberId: 'qhsGy4neFe',
  firstName,
  lastName,
  genderCode,
  dateOfBirth,
  emailAddress,
}
`
const REGENERATE = 'the typed client is stale: run `npm run client:generate` and commit the result'

describe('The generated client files', () => {
  it('match the document the code serves (else: npm run client:generate)', SLOW, async () => {
    const fresh = await generateClientFiles()
    const committed = (file: string) => readFileSync(join(ROOT, file), 'utf8')
    expect(committed(DOCUMENT_FILE) === fresh.document, `${DOCUMENT_FILE}: ${REGENERATE}`).toBe(
      true,
    )
    expect(committed(SCHEMA_FILE) === fresh.schema, `${SCHEMA_FILE}: ${REGENERATE}`).toBe(true)
  })
})

describe('The client compiled on its own', () => {
  const run = promisify(execFile)

  /** clients/typescript copied to a scratch folder, node_modules linked, `tsc --strict` there. */
  async function compileCopy(extraFiles: Record<string, string> = {}) {
    const dir = mkdtempSync(join(tmpdir(), 'typed-client-'))
    try {
      cpSync(CLIENT_DIR, dir, { recursive: true })
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
      for (const [name, text] of Object.entries(extraFiles)) writeFileSync(join(dir, name), text)
      const tsc = join(dir, 'node_modules/typescript/bin/tsc')
      return await run(process.execPath, [tsc, '--strict', '--noEmit'], { cwd: dir }).then(
        ({ stdout }) => ({ ok: true, output: stdout }),
        (error: { stdout?: string }) => ({ ok: false, output: error.stdout ?? String(error) }),
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }

  it('passes tsc --strict in a scratch folder (where tsc does reject a misuse)', SLOW, async () => {
    // One compile: the client and its example must be clean, the planted misuse not.
    const { ok, output } = await compileCopy({
      'examples/misuse.ts':
        "import { createApiClient } from '../src/client.js'\n" +
        "await createApiClient({ baseUrl: 'http://x' }).getMember(42)\n",
    })
    expect(ok).toBe(false)
    const errors = output.split('\n').filter((line) => /error TS\d+/.test(line))
    expect(errors).toEqual([expect.stringMatching(/^examples\/misuse\.ts\(2,.*error TS2345/)])
  })

  it(
    "types generated with openapi-typescript's default options take natural code",
    SLOW,
    async () => {
      // What `npx openapi-typescript URL` gives a user: no option of ours.
      const document = JSON.parse(readFileSync(join(ROOT, DOCUMENT_FILE), 'utf8')) as OpenAPI3
      const stock = astToString(await openapiTS(document, { silent: true }))
      const { ok, output } = await compileCopy({
        'examples/stock-schema.ts': stock,
        'examples/natural-session.ts': NATURAL_SESSION,
      })
      expect(output.split('\n').filter((line) => /error TS\d+/.test(line))).toEqual([])
      expect(ok).toBe(true)
    },
  )
})

describe('A session through the typed client alone', () => {
  const suite = serverPerSuite(SQLITE_TARGET)
  const run = sessionRun()
  for (const { name, step } of CLIENT_SESSION) {
    it(name, () => step({ baseUrl: suite.server.baseUrl }, run))
  }
})
