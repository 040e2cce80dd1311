import pino from 'pino'

/** However few lines wait, they are written after at most this long. */
export const LOG_FLUSH_INTERVAL_MS = 1000

/**
 * Past this many bytes waiting for a standard output that has stalled (a reader that
 * stopped reading), new lines are dropped and counted rather than held without bound.
 */
export const LOG_WAITING_MAX_BYTES = 16 * 1024 * 1024

/** Standard output (or `fd`) for JSON log lines, and what it had to drop. */
export interface StdoutDestination {
  /** pino's destination (a sonic-boom stream). */
  readonly stream: ReturnType<typeof pino.destination>
  /** Lines dropped so far because LOG_WAITING_MAX_BYTES were waiting. */
  linesDropped(): number
}

/**
 * pino's own asynchronous destination (sonic-boom): lines gather until `bufferBytes`
 * are waiting, then go out in one write, off the event loop; `bufferBytes` 0 writes
 * each line as it comes, as Fastify's default logger does. pino flushes it
 * synchronously on `process.exit`; the other ways out (a signal, an uncaught error)
 * are server.ts's, which end in `process.exit`.
 */
export function stdoutDestination(
  bufferBytes: number,
  { fd = 1, waitingMaxBytes = LOG_WAITING_MAX_BYTES } = {},
): StdoutDestination {
  const stream = pino.destination({
    dest: fd,
    sync: false,
    // At least 1, so that a flush's callback waits for a write in flight (server.ts's
    // exits); any line is longer, so 1 writes each line as it comes, as 0 does.
    minLength: Math.max(1, bufferBytes),
    maxLength: waitingMaxBytes,
    ...(bufferBytes > 0 && { periodicFlush: LOG_FLUSH_INTERVAL_MS }),
  })
  let dropped = 0
  stream.on('drop', (data: string) => {
    for (let at = data.indexOf('\n'); at !== -1; at = data.indexOf('\n', at + 1)) dropped += 1
  })
  return { stream, linesDropped: () => dropped }
}
