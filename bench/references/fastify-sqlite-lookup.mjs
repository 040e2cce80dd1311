// A bare Fastify route per resource with one better-sqlite3 lookup by id, Fastify's default
// logger on (info: a line per request and per response): what the framework itself costs
// on this machine, and what the service's GET by id is held to.
// The release the service loads for this Node.js (src/infra/db/sqlite-driver.ts).
const { default: Database } =
  Number(process.versions.napi) >= 10
    ? await import('better-sqlite3-napi')
    : await import('better-sqlite3')

import Fastify from 'fastify'
import { memberByIdSql, memberResource, todoResource } from './lookups.mjs'

const database = new Database(process.env.SQLITE_FILE, { readonly: true })
const todoById = database.prepare('select * from todo where todo_id = ?')
const memberById = database.prepare(memberByIdSql('?'))
const app = Fastify({ logger: { level: 'info' } })
app.get('/todos/:id', async (request) => todoResource(todoById.get(request.params.id)))
app.get('/members/:id', async (request) => memberResource(memberById.get(request.params.id)))
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
