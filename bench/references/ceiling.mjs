// The ceiling of this machine: node:http answering a fixed, precomputed Todo JSON.
import { createServer } from 'node:http'

const body = JSON.stringify({
  todoId: '01a20114-a9e4-73d1-b63d-c583549b3710',
  todoTitle: 'Buy milk',
  finished: false,
  createdAt: '2026-11-22T09:15:02.123Z',
})
const headers = {
  'content-type': 'application/json;charset=UTF-8',
  'content-length': Buffer.byteLength(body),
}
createServer((_request, response) => {
  response.writeHead(200, headers)
  response.end(body)
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'))
