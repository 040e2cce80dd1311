import { Readable } from 'node:stream'
import { setImmediate as eventLoopTurn } from 'node:timers/promises'

/**
 * A JSON array of any length, as a stream of its text: `[`, the items joined by `,`, `]`.
 *
 * Why: an answer built whole costs memory in proportion to its length, once more for every
 * client that asks at the same time, and for as long as the slowest of them takes to read
 * it. Here the text is made one batch at a time, and the next batch is asked for only when
 * the socket has taken the last one (the stream is read on demand, and Fastify pipes it,
 * which waits for 'drain'): a reader costs about one batch of text, however long the
 * array and however slowly it reads.
 *
 * The first batch is read before this resolves, so a failure at the start rejects and the
 * caller can still answer an error. Once the answer has started, a failure can only cut
 * the connection (Fastify logs it and destroys the socket; the client sees a chunked body
 * that never ends). When the client goes away, the stream is destroyed and the batches'
 * iterator is closed (return()), so no more batches are read.
 *
 * Written out rather than as Readable.from over an async generator: a suspended generator
 * keeps all its locals alive, so a reader stalled on a slow client would also hold the
 * batch it last made. Each batch is one JSON.stringify, which makes one flat string; text
 * built item by item with `+=` stays a rope of small strings until it is written.
 */
export async function jsonArrayStream<T>(
  batches: AsyncIterable<readonly T[]>,
  toJson: (item: T) => unknown,
): Promise<Readable> {
  const iterator = batches[Symbol.asyncIterator]()
  const first = await iterator.next()
  let firstBatch: readonly T[] | undefined = first.done ? undefined : first.value
  let opened = false

  /** The batch's items as array text: `[a,b` for the first, `,c,d` for the others. */
  const textOf = (batch: readonly T[]): string => {
    const json = JSON.stringify(batch.map(toJson))
    const text = opened ? `,${json.slice(1, -1)}` : json.slice(0, -1)
    opened = true
    return text
  }

  /** The next batch's text, or undefined after the last. */
  const nextText = async (): Promise<string | undefined> => {
    // Batches that come without I/O (SQLite answers synchronously), written to a socket
    // that takes them at once, would otherwise chain promise after promise and keep the
    // event loop from every other connection until the whole array is sent.
    await eventLoopTurn()
    for (;;) {
      const next = await iterator.next()
      if (next.done) return undefined
      if (next.value.length > 0) return textOf(next.value)
    }
  }

  return new Readable({
    // Strings pass through as they are. Nothing is read ahead: a batch is made when the
    // socket wants it, so a reader whose socket is full holds the one batch it is writing
    // (measured: reading one ahead cost more memory and no speed, also on PostgreSQL).
    objectMode: true,
    highWaterMark: 0,
    read() {
      const batch = firstBatch
      firstBatch = undefined
      if (batch && batch.length > 0) {
        this.push(textOf(batch))
        return
      }
      nextText().then(
        (text) => {
          if (text !== undefined) {
            this.push(text)
            return
          }
          this.push(opened ? ']' : '[]')
          this.push(null)
        },
        (error: unknown) => this.destroy(error instanceof Error ? error : new Error(String(error))),
      )
    },
    destroy(error, callback) {
      firstBatch = undefined
      Promise.resolve(iterator.return?.()).then(
        () => callback(error),
        () => callback(error),
      )
    },
  })
}
