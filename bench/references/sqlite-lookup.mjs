// node:http and one better-sqlite3 lookup by id: the floor cost of a stored Todo.
import { createServer } from 'node:http'

// The release the service loads for this Node.js (src/infra/db/sqlite-driver.ts).
const { default: Database } =
  Number(process.versions.napi) >= 10
    ? await import('better-sqlite3-napi')
    : await import('better-sqlite3')

const database = new Database(process.env.SQLITE_FILE, { readonly: true })
const byId = database.prepare('select * from todo where todo_id = ?')
createServer((request, response) => {
  const row = byId.get(request.url.slice(request.url.lastIndexOf('/') + 1))
  const body = JSON.stringify({
    todoId: row.todo_id,
    todoTitle: row.todo_title,
    finished: row.finished === 1,
    createdAt: row.created_at,
  })
  response.writeHead(200, {
    'content-type': 'application/json;charset=UTF-8',
    'content-length': Buffer.byteLength(body),
  })
  response.end(body)
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'))
