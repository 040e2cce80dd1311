// A bare Fastify route per resource with one lookup by id (better-sqlite3 or pg, named:
// lookups.mjs), Fastify's default logger on (info: a line per request and per response):
// what the framework itself costs on this machine, and what the service's GET by id is
// held to on each database.
import Fastify from 'fastify'
import { lookupsFromEnvironment } from './lookups.mjs'

const lookups = await lookupsFromEnvironment()
const app = Fastify({ logger: { level: 'info' } })
app.get('/todos/:id', (request) => lookups.todos(request.params.id))
app.get('/members/:id', (request) => lookups.members(request.params.id))
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
