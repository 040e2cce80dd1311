import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASES, type IsolatedDatabase } from '../helpers/databases.js'
import {
  buildBundle,
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

let built = false
/** `npm run build`, once for every database. */
function buildOnce(): void {
  if (built) return
  buildBundle()
  built = true
}

describe('The production build', () => {
  for (const target of DATABASES) {
    describe.skipIf(!target.available)(`on ${target.name}`, () => {
      let database: IsolatedDatabase | undefined
      let server: ServerProcess | undefined
      beforeAll(async () => {
        buildOnce()
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
