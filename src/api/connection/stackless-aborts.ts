import type { Socket } from 'node:net'

/**
 * When a connection closes, Node destroys each request it parsed and has not answered
 * with an error of its own ("aborted"), and its stream machinery reads that error's
 * stack. A client pipelining hundreds of requests and closing (or being closed past
 * READ_AHEAD_MAX) thus had the event loop capture and format hundreds of stack traces
 * at once, through the source maps (docs/operations/capacity.md#connections has what it cost).
 * Nobody reads those errors (the client is gone), so while Node's own `close` listener
 * runs, stack traces are not captured: Error.stackTraceLimit is 0 from a listener put
 * before Node's to one put after it, both on the same synchronous `close` emit.
 */
export function abortWithoutStacks(socket: Socket): void {
  let limit: number | undefined
  socket.prependOnceListener('close', () => {
    limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
  })
  socket.once('close', () => {
    if (limit !== undefined) Error.stackTraceLimit = limit
  })
}
