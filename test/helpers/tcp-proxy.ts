import { connect, createServer, type Server, type Socket } from 'node:net'
import type { DatabaseConfig } from '../../src/config/settings.js'
import { POSTGRES_URL } from './databases.js'

/**
 * A TCP proxy on a loopback port in front of a real server (PostgreSQL), so a test can
 * cut the connection off (an outage as the service sees it) and restore it.
 */
export interface TcpProxy {
  readonly port: number
  /** Drops every open connection and refuses new ones (a stopped server). */
  cut(): Promise<void>
  /**
   * Keeps every connection open but forwards nothing either way, and accepts new ones
   * without connecting them (a network that stops answering): only timeouts notice.
   */
  stall(): void
  /** Forwards again: after `cut`, on the same port; after `stall`, the held bytes too. */
  restore(): Promise<void>
  close(): Promise<void>
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = 0
  let stalled = false
  const held: Array<() => void> = []

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        if (stalled) {
          sockets.add(client)
          client.pause()
          client.on('close', () => sockets.delete(client))
          client.on('error', () => client.destroy())
          held.push(() => bridge(client))
          return
        }
        bridge(client)
      })
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        const address = server?.address()
        if (address && typeof address !== 'string') port = address.port
        resolve()
      })
    })

  function bridge(client: Socket): void {
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
    client.resume()
  }

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
    stall: () => {
      stalled = true
      for (const socket of sockets) socket.pause()
    },
    restore: async () => {
      if (stalled) {
        stalled = false
        for (const socket of sockets) socket.resume()
        for (const connect of held.splice(0)) connect()
      }
      if (!server) await listen()
    },
    close: stop,
  }
}

/** A PostgreSQL database reached through a proxy in front of the test server: its config, and the proxy. */
export async function viaProxy(
  database: DatabaseConfig,
): Promise<{ proxy: TcpProxy; config: DatabaseConfig }> {
  if (database.kind !== 'postgres') throw new Error('expected PostgreSQL')
  const upstream = new URL(POSTGRES_URL as string)
  const proxy = await startTcpProxy(upstream.hostname, Number(upstream.port || 5432))
  const url = new URL(database.url)
  url.host = `127.0.0.1:${proxy.port}`
  return { proxy, config: { ...database, url: url.toString() } }
}
