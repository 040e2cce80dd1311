// node:http and pg, one lookup by id per request, the hot statements named (prepared once
// per connection): the floor cost of a stored Todo or Member on PostgreSQL.
import { createServer } from 'node:http'
import pg from 'pg'
import { memberByIdSql, memberResource, todoResource } from './lookups.mjs'

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DB_POOL_MAX ?? 10),
})
const LOOKUPS = {
  todos: {
    query: { name: 'todo_by_id', text: 'select * from todo where todo_id = $1' },
    resource: todoResource,
  },
  members: {
    query: { name: 'member_by_id', text: memberByIdSql('$1') },
    resource: memberResource,
  },
}

createServer(async (request, response) => {
  const [, kind, id] = request.url.split('/')
  const { query, resource } = LOOKUPS[kind]
  const { rows } = await pool.query({ ...query, values: [id] })
  const body = JSON.stringify(resource(rows[0]))
  response.writeHead(200, {
    'content-type': 'application/json;charset=UTF-8',
    'content-length': Buffer.byteLength(body),
  })
  response.end(body)
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'))
