import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { abortWithoutStacks } from './stackless-aborts.js'

type Handler = (request: IncomingMessage, response: ServerResponse) => void

/**
 * Requests of one connection parsed ahead of their turn. A client pipelining more is
 * not read from until the line shortens, so a flood of pipelined requests waits in the
 * client's socket buffers, not in this process's memory. Node parses a read whole,
 * though: the requests of the read that fills the line are parsed too, up to 64 KiB of
 * them, each made into objects; those beyond this count are the policy's read-ahead.
 */
const MAX_WAITING = 16

interface Exchange {
  readonly request: IncomingMessage
  readonly response: ServerResponse
}

/** What the lines of one server share: the read-ahead, and the counts of clients cut. */
export interface LinePolicy {
  /** A client was disconnected for taking no byte of an answer. */
  slowClientDisconnected(): void
  /**
   * Room for one more request waiting beyond a line's MAX_WAITING; false when all the
   * lines' read-ahead together is at its limit, and the connection is then closed.
   */
  reserveReadAhead(): boolean
  /** That many requests waiting beyond a line's MAX_WAITING have left it. */
  releaseReadAhead(count: number): void
}

/**
 * Did the answer just sent close the connection? Node ends the socket right after an
 * answer that closes it (`Connection: close`, HTTP/1.0, a client that asked to close),
 * before the answer's `close` event; an answer cut short destroys it.
 */
function closedConnection(socket: Socket): boolean {
  return socket.destroyed || socket.writableEnded
}

/** Calls `then` once the socket has taken every byte written to it, or has closed. */
function whenDrained(socket: Socket, then: () => void): void {
  if (!socket.writableNeedDrain) {
    then()
    return
  }
  const done = () => {
    socket.off('drain', done)
    socket.off('close', done)
    then()
  }
  socket.on('drain', done)
  socket.on('close', done)
}

/**
 * The requests of one connection, handled one at a time in the order they arrived.
 * Node parses pipelined requests as soon as their bytes arrive and would run all their
 * handlers at once; it sends the answers in order, but when one answer closes the
 * connection the later ones are never sent, although their requests were executed.
 * Here a request runs only once the answer before it is complete and the socket has
 * taken it, and not at all if that answer closed the connection (decisions §2,
 * Connections). Between two requests the line yields to the event loop, so that other
 * connections' requests take turns with a pipelining one (decisions §9). A client that
 * takes no byte of an answer for the send timeout is disconnected: the lines' sweep
 * (connection-lines.ts) looks at each socket's unsent bytes, so that a request pays for
 * no timer of its own.
 */
export class ConnectionLine {
  readonly #socket: Socket
  readonly #handle: Handler
  readonly #policy: LinePolicy
  /** The exchange being answered, until the next one's turn comes. */
  #running: Exchange | undefined
  readonly #waiting: Exchange[] = []
  #closed = false
  /** The service stops: the answer in progress is this connection's last. */
  #stopping = false
  /** The answer to bytes Node could not parse, sent once every earlier request is answered. */
  #finalAnswer: ((afterStartedAnswer: boolean) => void) | undefined
  /** The socket's unsent bytes as the sweep last found them, and since when. */
  #unsent: { bytes: number; written: number; sinceMs: number } | undefined
  readonly #answeredListener = (): void => this.#answered()

  constructor(socket: Socket, handle: Handler, policy: LinePolicy) {
    this.#socket = socket
    this.#handle = handle
    this.#policy = policy
    // Node's parser resumes the socket after every request it parses, which undid the
    // pause below at once: a client pipelining thousands of requests had all of them
    // parsed and held. While the line is full, it is paused again before the next read.
    socket.on('resume', () => {
      if (this.#waiting.length >= MAX_WAITING) socket.pause()
    })
    socket.once('close', () => this.#close())
    abortWithoutStacks(socket)
  }

  enqueue(exchange: Exchange): void {
    if (this.#closed) return
    if (this.#running === undefined) {
      this.#run(exchange)
      return
    }
    if (this.#stopping) return
    if (this.#waiting.length >= MAX_WAITING && !this.#policy.reserveReadAhead()) {
      // More than the service holds for all pipelining clients together: the requests
      // waiting are not run (a client retries them on a new connection, RFC 9112 §9.3.2).
      this.#close()
      this.#socket.destroy()
      return
    }
    this.#waiting.push(exchange)
    if (this.#waiting.length >= MAX_WAITING) this.#socket.pause()
  }

  /**
   * Node could not parse what arrived after the requests already in line. A request
   * whose body was still arriving is the broken one: it is dropped, unexecuted. The
   * answer goes out after the others', unless one of theirs closes the connection.
   */
  endWith(answer: (afterStartedAnswer: boolean) => void): void {
    if (this.#closed || this.#finalAnswer !== undefined) return
    const last = this.#waiting.at(-1) ?? this.#running
    if (last !== undefined && !last.request.complete) {
      if (last === this.#running) {
        this.#close()
        // The route may have answered before the body it never read was all sent.
        answer(last.response.headersSent)
        return
      }
      this.#dropWaiting(this.#waiting.length - 1)
    }
    this.#finalAnswer = answer
    if (this.#running === undefined) this.#finish()
  }

  /**
   * The service stops: requests waiting in line are not run, and the answer in progress
   * closes the connection.
   */
  stop(): void {
    this.#stopping = true
    this.#dropWaiting(0)
  }

  /**
   * The sweep's look at this connection, every so often: bytes written that the client
   * has left untaken, the same bytes for `sendTimeoutMs`, disconnect it. No bytes waiting
   * is a client that took everything, or a handler still at work, which is not the
   * client's doing. The kernel takes more only once it has sent about a third of its
   * send buffer (docs/operations/capacity.md#connections), and Node sees it when a write of its
   * own completes: until then the bytes waiting do not change.
   */
  sweep(nowMs: number, sendTimeoutMs: number): void {
    const socket = this.#socket
    const bytes = socket.writableLength
    if (bytes === 0) {
      this.#unsent = undefined
      return
    }
    const written = socket.bytesWritten
    const unsent = this.#unsent
    if (unsent === undefined || unsent.bytes !== bytes || unsent.written !== written) {
      this.#unsent = { bytes, written, sinceMs: nowMs }
      return
    }
    if (nowMs - unsent.sinceMs < sendTimeoutMs) return
    this.#policy.slowClientDisconnected()
    socket.destroy()
  }

  #run(exchange: Exchange): void {
    this.#running = exchange
    exchange.response.on('close', this.#answeredListener)
    this.#handle(exchange.request, exchange.response)
  }

  #answered(): void {
    const socket = this.#socket
    if (closedConnection(socket)) {
      this.#close()
      return
    }
    // Nothing waits and the socket took the answer: the line is free at once. A request
    // arriving later arrives on a later turn of the event loop anyway.
    const free =
      this.#waiting.length === 0 &&
      !this.#stopping &&
      this.#finalAnswer === undefined &&
      !socket.writableNeedDrain
    if (free) {
      this.#running = undefined
      return
    }
    whenDrained(socket, () => setImmediate(() => this.#next()))
  }

  #next(): void {
    this.#running = undefined
    if (this.#closed) return
    if (this.#stopping) {
      // The answer is sent and taken: the requests behind it are not run.
      this.#close()
      this.#socket.destroy()
      return
    }
    const next = this.#waiting[0]
    this.#dropWaiting(0, 1)
    if (next === undefined) {
      this.#finish()
      return
    }
    if (this.#waiting.length === MAX_WAITING - 1) this.#socket.resume()
    this.#run(next)
  }

  #finish(): void {
    const answer = this.#finalAnswer
    if (answer === undefined) return
    this.#close()
    answer(false)
  }

  #close(): void {
    this.#closed = true
    this.#dropWaiting(0)
  }

  /** Removes `count` waiting requests from `start` on (all by default), returning their read-ahead. */
  #dropWaiting(start: number, count = this.#waiting.length - start): void {
    const beyond = Math.max(0, this.#waiting.length - MAX_WAITING)
    this.#waiting.splice(start, count)
    const left = beyond - Math.max(0, this.#waiting.length - MAX_WAITING)
    if (left > 0) this.#policy.releaseReadAhead(left)
  }
}
