// A bare Fastify server with one route: the reference for cold start.
import Fastify from 'fastify'

const app = Fastify()
app.get('/', async () => ({ ok: true }))
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
console.log('listening')
