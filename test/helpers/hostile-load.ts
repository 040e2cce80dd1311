import { Agent, get } from 'node:http'
import { connect, type Socket } from 'node:net'

/*
 * Clients that load a server the way hostile or careless ones do, over real sockets on
 * 127.0.0.1: pipelining floods, connections that never read or never send, and clients
 * that ask without pause. Each runs until stopped.
 */

const requestOf = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`

/** Counts the answers on a connection as they stream by: status line and Content-Length framing. */
export class AnswerCounter {
  #head = ''
  #skip = 0
  constructor(private readonly onAnswer: (status: number) => void) {}

  push(chunk: Buffer): void {
    let offset = 0
    while (offset < chunk.length) {
      if (this.#skip > 0) {
        const taken = Math.min(this.#skip, chunk.length - offset)
        this.#skip -= taken
        offset += taken
        continue
      }
      const window = Math.min(chunk.length, offset + 8192)
      const text = this.#head + chunk.toString('latin1', offset, window)
      const end = text.indexOf('\r\n\r\n')
      if (end === -1) {
        this.#head = text
        offset = window
        continue
      }
      offset += end + 4 - this.#head.length
      this.#head = ''
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))
      if (!length) throw new Error(`an answer without Content-Length: ${text.slice(0, 200)}`)
      this.#skip = Number(length[1])
      this.onAnswer(Number(text.slice(9, 12)))
    }
  }
}

export interface Load {
  stop(): Promise<void>
}

function opened(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.once('connect', () => resolve(socket))
    socket.once('error', reject)
  })
}

/** A connection made ready by `use`, opened again whenever the server closes it, until stopped. */
function reopening(port: number, use: (socket: Socket, stopped: () => boolean) => void): Load {
  let stopped = false
  let socket: Socket | undefined
  const open = () => {
    if (stopped) return
    socket = connect({ host: '127.0.0.1', port })
    socket.on('error', () => {})
    socket.on('close', () => setTimeout(open, 100))
    use(socket, () => stopped)
  }
  open()
  return {
    stop: async () => {
      stopped = true
      socket?.destroy()
    },
  }
}

/**
 * A connection writing `depth` requests at once, reading every answer, then again; when
 * the server closes it, another does the same.
 */
export function flood(
  port: number,
  path: string,
  depth: number,
  statuses: Map<number, number>,
): Load {
  return reopening(port, (socket, stopped) => {
    let answered = 0
    const batch = () => socket.write(requestOf(path).repeat(depth))
    const counter = new AnswerCounter((status) => {
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
      answered += 1
      if (answered % depth === 0 && !stopped()) batch()
    })
    socket.on('connect', batch)
    socket.on('data', (chunk: Buffer) => counter.push(chunk))
  })
}

/** A connection writing `depth` requests and never reading a byte. */
export async function neverReading(port: number, path: string, depth: number): Promise<Load> {
  const socket = await opened(port)
  socket.pause()
  socket.on('error', () => {})
  socket.write(requestOf(path).repeat(depth))
  return { stop: async () => void socket.destroy() }
}

/** A connection that sends nothing, opened again whenever the server closes it. */
export function idleConnection(port: number): Load {
  return reopening(port, () => {})
}

export interface SearchAnswer {
  readonly status: number
  readonly retryAfter: string | undefined
  readonly body: string
}

/** A client asking the paths one after another, without pause, until stopped. */
export function searchClient(
  baseUrl: string,
  paths: readonly string[],
  answers: SearchAnswer[],
): Load {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  let stopped = false
  const ask = (path: string) =>
    new Promise<void>((resolve) => {
      get(`${baseUrl}${path}`, { agent }, (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          if (response.statusCode !== 200) body += chunk
        })
        response.on('end', () => {
          const retryAfter = response.headers['retry-after']
          answers.push({ status: response.statusCode ?? 0, retryAfter, body })
          resolve()
        })
      }).on('error', (error) => {
        answers.push({ status: 0, retryAfter: undefined, body: error.message })
        resolve()
      })
    })
  const loop = (async () => {
    for (let next = Math.floor(Math.random() * paths.length); !stopped; next += 1) {
      await ask(paths[next % paths.length] as string)
    }
  })()
  return {
    stop: async () => {
      stopped = true
      await loop
      agent.destroy()
    },
  }
}
