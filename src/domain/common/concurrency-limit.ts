/**
 * Runs at most `limit` tasks at once; the others wait their turn, first come first served,
 * without a time limit of their own.
 *
 * Why: a bulk read (every Todo, page by page) by many clients at once would otherwise
 * queue one query per client for the database connections, which every other request
 * shares: on PostgreSQL the wait for a pooled connection passes its time limit and
 * requests fail; on SQLite's one connection a point read waits behind all of them. Held
 * back here instead, bulk readers wait for each other, not for the connections.
 *
 * A finished task hands its place straight to the next in line. Tasks that do no I/O
 * (SQLite answers synchronously) then run one after another in a single turn of the event
 * loop, which serves nothing else meanwhile; so after `sliceMs` of that, the next one
 * starts on the following turn. (Handing over on a new turn every time costs more:
 * measured, the waits grow long enough for much more garbage to reach V8's old space.)
 */
export class ConcurrencyLimit {
  #running = 0
  readonly #waiting: (() => void)[] = []
  /** When the hand-overs of the current turn of the event loop began. */
  #chainStartedAt: number | undefined

  constructor(
    readonly limit: number,
    readonly sliceMs = 10,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running < this.limit) this.#running += 1
    else await new Promise<void>((resolve) => this.#waiting.push(resolve))
    try {
      return await task()
    } finally {
      // The place passes to the next in line, or is given back.
      const next = this.#waiting.shift()
      if (next) this.#handOver(next)
      else this.#running -= 1
    }
  }

  #handOver(next: () => void): void {
    const now = performance.now()
    if (this.#chainStartedAt === undefined) {
      // The first hand-over of this turn; the turn ends when the event loop moves on.
      this.#chainStartedAt = now
      setImmediate(() => {
        this.#chainStartedAt = undefined
      })
    }
    if (now - this.#chainStartedAt < this.sliceMs) next()
    else setImmediate(next)
  }
}
