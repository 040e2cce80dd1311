// node:http and @node-rs/argon2 with the service's parameters (src/infra/crypto/argon2.ts):
// each POST's JSON body is read and its credential.password hashed, nothing stored. The
// floor cost of creating a Member: its rate and memory are what a create is held to.
import { createServer } from 'node:http'
import { hash } from '@node-rs/argon2'

const COST = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 }

createServer((request, response) => {
  const chunks = []
  request.on('data', (chunk) => chunks.push(chunk))
  request.on('end', async () => {
    let body = '{}' // GET: ready
    if (request.method === 'POST') {
      const { credential } = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      body = JSON.stringify({ hashed: (await hash(credential.password, COST)).length })
    }
    response.writeHead(request.method === 'POST' ? 201 : 200, {
      'content-type': 'application/json;charset=UTF-8',
      'content-length': Buffer.byteLength(body),
    })
    response.end(body)
  })
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'))
