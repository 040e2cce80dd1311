import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { ConnectionLine, type LinePolicy } from './connection-line.js'

type Handler = (request: IncomingMessage, response: ServerResponse) => void

const lines = new WeakMap<Socket, ConnectionLine>()

const MIN_SWEEP_PERIOD_MS = 10
const MAX_SWEEP_PERIOD_MS = 1000

/** The line of a connection, if a request has arrived on it. */
export function existingLineOf(socket: Socket): ConnectionLine | undefined {
  return lines.get(socket)
}

export interface LineLimits {
  /** While serving: SEND_TIMEOUT. */
  readonly sendTimeoutMs: number
  /** Once a stop began, so that clients taking nothing are let go before its deadline. */
  readonly stopSendTimeoutMs: number
  /** READ_AHEAD_MAX: requests all lines together may hold beyond their first ones. */
  readonly readAheadMax: number
}

/**
 * The connection lines of one server, each made on its connection's first request and
 * forgotten when its connection closes, and the policy they share: the send timeout,
 * the read-ahead of pipelining clients, and the counts of clients cut by either.
 */
export class ConnectionLines implements LinePolicy {
  readonly #open = new Set<ConnectionLine>()
  readonly #limits: LineLimits
  #stopped = false
  /** The sweep of the send timeout, while any connection is open. */
  #sweeper: NodeJS.Timeout | undefined
  #slowClients = 0
  #readAhead = 0
  #pipelinesCut = 0

  constructor(limits: LineLimits) {
    this.#limits = limits
  }

  get sendTimeoutMs(): number {
    const { sendTimeoutMs, stopSendTimeoutMs } = this.#limits
    return this.#stopped ? Math.min(sendTimeoutMs, stopSendTimeoutMs) : sendTimeoutMs
  }

  /** Requests waiting beyond their line's first ones now, all lines together. */
  get readAhead(): number {
    return this.#readAhead
  }

  /** Connections closed because their pipelined requests would pass READ_AHEAD_MAX. */
  get pipelinesCut(): number {
    return this.#pipelinesCut
  }

  reserveReadAhead(): boolean {
    if (this.#readAhead >= this.#limits.readAheadMax) {
      this.#pipelinesCut += 1
      return false
    }
    this.#readAhead += 1
    return true
  }

  releaseReadAhead(count: number): void {
    this.#readAhead -= count
  }

  /** Connections closed because their client took no byte of an answer in time. */
  get slowClientsDisconnected(): number {
    return this.#slowClients
  }

  slowClientDisconnected(): void {
    this.#slowClients += 1
  }

  lineOf(socket: Socket, handle: Handler): ConnectionLine {
    let line = lines.get(socket)
    if (line === undefined) {
      const made = new ConnectionLine(socket, handle, this)
      lines.set(socket, made)
      this.#open.add(made)
      this.#sweeper ??= this.#startSweep()
      socket.once('close', () => {
        this.#open.delete(made)
        if (this.#open.size === 0) this.#stopSweep()
      })
      if (this.#stopped) made.stop()
      line = made
    }
    return line
  }

  /** The service stops (ConnectionLine.stop); a connection made from now on runs one request. */
  stop(): void {
    this.#stopped = true
    for (const line of this.#open) line.stop()
    // The send timeout is shorter from now on: so is the sweep's period.
    if (this.#sweeper !== undefined) {
      this.#stopSweep()
      this.#sweeper = this.#startSweep()
    }
  }

  /**
   * Every quarter of the send timeout (within 10 ms and 1 s), each line looks at its
   * socket (ConnectionLine.sweep): a client is cut between one and one and a half times
   * the timeout after it last took a byte.
   */
  #startSweep(): NodeJS.Timeout {
    const timeoutMs = this.sendTimeoutMs
    const periodMs = Math.min(MAX_SWEEP_PERIOD_MS, Math.max(MIN_SWEEP_PERIOD_MS, timeoutMs / 4))
    const sweeper = setInterval(() => {
      const nowMs = performance.now()
      for (const line of this.#open) line.sweep(nowMs, timeoutMs)
    }, periodMs)
    sweeper.unref()
    return sweeper
  }

  #stopSweep(): void {
    clearInterval(this.#sweeper)
    this.#sweeper = undefined
  }
}
