// node:http and one lookup by id per request (better-sqlite3 or pg, named: lookups.mjs):
// the floor cost of a stored Todo or Member on each database, for scale.
import { createServer } from 'node:http'
import { lookupsFromEnvironment } from './lookups.mjs'

const lookups = await lookupsFromEnvironment()

createServer(async (request, response) => {
  const [, kind, id] = request.url.split('/')
  const body = JSON.stringify(await lookups[kind](id))
  response.writeHead(200, {
    'content-type': 'application/json;charset=UTF-8',
    'content-length': Buffer.byteLength(body),
  })
  response.end(body)
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'))
