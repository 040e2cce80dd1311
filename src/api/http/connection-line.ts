import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

type Handler = (request: IncomingMessage, response: ServerResponse) => void

/**
 * Requests of one connection parsed ahead of their turn. A client pipelining more is
 * not read from until the line shortens, so a flood of pipelined requests waits in the
 * client's socket buffers, not in this process's memory.
 */
const MAX_WAITING = 16

interface Exchange {
  readonly request: IncomingMessage
  readonly response: ServerResponse
}

/**
 * Did this answer close the connection? Node marks an answer after which it closes the
 * connection as its last (`_last`: `Connection: close`, HTTP/1.0, a client that asked to
 * close); Fastify writes its headers with writeHead, which getHeader does not see.
 */
function closedConnection(response: ServerResponse): boolean {
  const { _last: last } = response as ServerResponse & { _last?: boolean }
  return last === true || !response.shouldKeepAlive || response.socket?.destroyed === true
}

/**
 * The requests of one connection, handled one at a time in the order they arrived.
 * Node parses pipelined requests as soon as their bytes arrive and would run all their
 * handlers at once; it sends the answers in order, but when one answer closes the
 * connection the later ones are never sent, although their requests were executed.
 * Here a request runs only once the answer before it is complete, and not at all if
 * that answer closed the connection (decisions §2, Connections).
 */
export class ConnectionLine {
  readonly #handle: Handler
  #running: Exchange | undefined
  readonly #waiting: Exchange[] = []
  #closed = false
  /** The answer to bytes Node could not parse, sent once every earlier request is answered. */
  #finalAnswer: (() => void) | undefined

  constructor(handle: Handler) {
    this.#handle = handle
  }

  enqueue(exchange: Exchange): void {
    if (this.#closed) return
    if (this.#running === undefined) {
      this.#run(exchange)
      return
    }
    this.#waiting.push(exchange)
    if (this.#waiting.length >= MAX_WAITING) exchange.request.socket.pause()
  }

  /**
   * Node could not parse what arrived after the requests already in line. A request
   * whose body was still arriving is the broken one: it is dropped, unexecuted. The
   * answer goes out after the others', unless one of theirs closes the connection.
   */
  endWith(answer: () => void): void {
    if (this.#closed || this.#finalAnswer !== undefined) return
    const last = this.#waiting.at(-1) ?? this.#running
    if (last !== undefined && !last.request.complete) {
      if (last === this.#running) {
        this.#close()
        answer()
        return
      }
      this.#waiting.pop()
    }
    this.#finalAnswer = answer
    if (this.#running === undefined) this.#finish()
  }

  #run(exchange: Exchange): void {
    this.#running = exchange
    exchange.response.once('close', () => this.#next(exchange))
    this.#handle(exchange.request, exchange.response)
  }

  #next(done: Exchange): void {
    this.#running = undefined
    if (closedConnection(done.response)) {
      this.#close()
      return
    }
    const next = this.#waiting.shift()
    if (next === undefined) {
      this.#finish()
      return
    }
    if (this.#waiting.length === MAX_WAITING - 1) next.request.socket.resume()
    this.#run(next)
  }

  #finish(): void {
    const answer = this.#finalAnswer
    if (answer === undefined) return
    this.#close()
    answer()
  }

  #close(): void {
    this.#closed = true
    this.#waiting.length = 0
  }
}

const lines = new WeakMap<Socket, ConnectionLine>()

/** The line of a connection, made on its first request. */
export function lineOf(socket: Socket, handle: Handler): ConnectionLine {
  let line = lines.get(socket)
  if (line === undefined) {
    line = new ConnectionLine(handle)
    lines.set(socket, line)
  }
  return line
}

/** The line of a connection, if a request has arrived on it. */
export function existingLineOf(socket: Socket): ConnectionLine | undefined {
  return lines.get(socket)
}
