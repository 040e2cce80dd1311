import { connect, createServer, type Server, type Socket } from 'node:net'

/**
 * A TCP proxy on a loopback port in front of a real server (PostgreSQL), so a test can
 * cut the connection off (an outage as the service sees it) and restore it.
 */
export interface TcpProxy {
  readonly port: number
  /** Drops every open connection and refuses new ones. */
  cut(): Promise<void>
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>
  close(): Promise<void>
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = 0

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(targetPort, targetHost)
        for (const socket of [client, upstream]) {
          sockets.add(socket)
          socket.on('close', () => sockets.delete(socket))
          socket.on('error', () => {
            client.destroy()
            upstream.destroy()
          })
        }
        client.pipe(upstream)
        upstream.pipe(client)
      })
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        const address = server?.address()
        if (address && typeof address !== 'string') port = address.port
        resolve()
      })
    })

  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      sockets.clear()
      if (!server) return resolve()
      server.close(() => resolve())
      server = undefined
    })

  await listen()
  return {
    get port() {
      return port
    },
    cut: stop,
    restore: listen,
    close: stop,
  }
}
