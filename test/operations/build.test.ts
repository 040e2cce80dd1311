import { readFileSync } from 'node:fs'
import { SourceMap } from 'node:module'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASES, type IsolatedDatabase } from '../helpers/databases.js'
import {
  FROM_BUILD,
  killLeftoverProcesses,
  type ServerProcess,
  startServerProcess,
} from '../helpers/process.js'

/**
 * `npm start` runs a bundle (scripts/build.mjs), not the sources the other suites run.
 * Its externals (native drivers, the argon2 addon, the docs page's files), its lazily
 * loaded driver and the web app's files (dist/web) must all still be found: one request
 * through each, on each database.
 */

const PROCESS_TEST = { timeout: 60_000 }

describe('The production build', () => {
  for (const target of DATABASES) {
    describe.skipIf(!target.available)(`on ${target.name}`, () => {
      let database: IsolatedDatabase | undefined
      let server: ServerProcess | undefined
      beforeAll(async () => {
        database = await target.create()
        server = await startServerProcess(database.config, {}, { entry: FROM_BUILD })
      }, PROCESS_TEST.timeout)
      afterAll(async () => {
        server?.kill('SIGTERM')
        await server?.exited
        await killLeftoverProcesses()
        await database?.drop()
      })
      const running = () => {
        if (!server) throw new Error('not started')
        return server
      }

      it('serves Todos, creates a Member (argon2 addon), the docs page and the web app', async () => {
        const todo = await running().request('POST', '/api/v1/todos', {
          body: { todoTitle: 'Built' },
        })
        expect(todo.status).toBe(201)
        const member = await running().request('POST', '/api/v1/members', {
          body: {
            firstName: 'Built',
            lastName: 'Bundle',
            genderCode: '1',
            dateOfBirth: '1990-01-01',
            emailAddress: 'built@example.com',
            credential: { password: 'built-password' },
          },
        })
        expect(member.status).toBe(201)
        const docs = await running().request('GET', '/api/docs/', { headers: { accept: '*/*' } })
        expect(docs.status).toBe(200)
        expect(docs.text).toContain('swagger-ui')
        const webApp = await running().request('GET', '/')
        expect(webApp.status).toBe(200)
        expect(webApp.headers['content-type']).toBe('text/html; charset=utf-8')
        expect(webApp.text).toContain('<div id="app"></div>')
      })

      it('stops on SIGTERM with exit code 0', async () => {
        running().kill('SIGTERM')
        expect(await running().exited).toEqual({ code: 0, signal: null })
      })
    })
  }
})

/**
 * The bundle's map holds the service's own sources only (scripts/build.mjs,
 * ownSourcesOnly): a stack frame in our code names its TypeScript file, one in a bundled
 * library names the bundle's position, never a file of ours nearby.
 */
describe("The bundle's source map", () => {
  let map: SourceMap
  let bundle: string
  beforeAll(() => {
    map = new SourceMap(JSON.parse(readFileSync('dist/service.js.map', 'utf8')))
    bundle = readFileSync('dist/service.js', 'utf8')
  }, PROCESS_TEST.timeout)

  /** Where `code` starts in the bundle, as a map's zero-based line and column. */
  const positionOf = (code: string) => {
    const at = bundle.indexOf(code)
    expect(at).toBeGreaterThan(-1)
    const before = bundle.slice(0, at).split('\n')
    return { line: before.length - 1, column: (before.at(-1) ?? '').length }
  }

  it('names only the sources under src/', () => {
    const sources = (map.payload as { sources: string[] }).sources
    expect(sources.length).toBeGreaterThan(50)
    for (const source of sources) expect(source).toMatch(/^\.\.\/src\//)
  })

  /** The source a position of the bundle maps to; none for an unmapped one. */
  const sourceAt = ({ line, column }: { line: number; column: number }) =>
    (map.findEntry(line, column) as { originalSource?: string }).originalSource

  it('maps our code to its TypeScript file, and a bundled library to no file', () => {
    expect(sourceAt(positionOf('function storedInstant('))).toMatch(
      /src\/infra\/db\/stored-instant\.ts$/,
    )
    const library = positionOf('function detectRecursiveSchemas(')
    expect(sourceAt({ ...library, column: library.column + 20 })).toBeUndefined()
  })
})
