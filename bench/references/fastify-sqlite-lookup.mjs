// A bare Fastify route with one better-sqlite3 lookup by id, logging on at info level
// (Fastify's default lines): what the framework itself costs on this machine.
// The release the service loads for this Node.js (src/infra/db/sqlite-driver.ts).
const { default: Database } =
  Number(process.versions.napi) >= 10
    ? await import('better-sqlite3-napi')
    : await import('better-sqlite3')

import Fastify from 'fastify'

const database = new Database(process.env.SQLITE_FILE, { readonly: true })
const byId = database.prepare('select * from todo where todo_id = ?')
const app = Fastify({ logger: { level: 'info' } })
app.get('/todos/:id', async (request) => {
  const row = byId.get(request.params.id)
  return {
    todoId: row.todo_id,
    todoTitle: row.todo_title,
    finished: row.finished === 1,
    createdAt: row.created_at,
  }
})
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
