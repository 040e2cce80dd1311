import type pg from 'pg'

/** How often the waiting statements are looked at: a late one is failed at most this much after its deadline. */
const SWEEP_EVERY_MS = 100

type Answered = (error: Error | null, result: pg.QueryResult) => void

/**
 * As pg's own promise does: a failure's stack, which leads to the socket's read, is
 * captured again where the statement is awaited, so that it names the code that ran it.
 */
function withCallersStack(error: Error): never {
  Error.captureStackTrace(error, withCallersStack)
  throw error
}

/**
 * pg's Client, with the client's own deadline for an answer: a connection whose statement
 * has had no answer `limitMs` after it was sent (a network that went dead, a server that
 * stopped answering; only the client can notice) is ended. That fails the statement, and
 * the pool replaces the connection.
 *
 * pg's `query_timeout` does the same with a timer per statement, whose callback keeps the
 * statement's scope, and so each request's objects, alive into the old generation under
 * load (docs/performance.md). Here one sweep, running while any statement waits, reads when
 * each connection's statement was sent. A cursor (pg's own query object) is left to its
 * own pace: the service reads none.
 */
export function clientWithAnswerDeadline(Client: typeof pg.Client, limitMs: number) {
  /** Each connection awaiting an answer, and when the statement it awaits was sent. */
  const waiting = new Map<DeadlineClient, number>()
  let sweep: NodeJS.Timeout | undefined

  const endLate = () => {
    const sentBefore = performance.now() - limitMs
    for (const [client, sentAt] of waiting) {
      if (sentAt < sentBefore) {
        waiting.delete(client)
        void client.end()
      }
    }
    if (waiting.size === 0) {
      clearInterval(sweep)
      sweep = undefined
    }
  }

  class DeadlineClient extends Client {
    /** Statements given to this connection and not answered yet (pg sends them one at a time). */
    #unanswered = 0

    #sent(): void {
      this.#unanswered += 1
      if (this.#unanswered > 1) return
      waiting.set(this, performance.now())
      sweep ??= setInterval(endLate, SWEEP_EVERY_MS).unref()
    }

    #answered(): void {
      this.#unanswered -= 1
      // The next statement in this connection's queue is sent now.
      if (this.#unanswered > 0) waiting.set(this, performance.now())
      else waiting.delete(this)
    }

    // pg's overloads, one implementation: a callback, else a promise.
    // biome-ignore lint/suspicious/noExplicitAny: the overloads' union
    override query(config: any, values?: any, callback?: any): any {
      if (typeof config?.submit === 'function') return super.query(config, values, callback)
      const parameters = typeof values === 'function' ? undefined : values
      const answered: Answered | undefined = typeof values === 'function' ? values : callback
      this.#sent()
      if (answered) {
        return super.query(config, parameters, (error: Error | null, result: pg.QueryResult) => {
          this.#answered()
          answered(error, result)
        })
      }
      return new Promise((resolve, reject) => {
        super.query(config, parameters, (error: Error | null, result: pg.QueryResult) => {
          this.#answered()
          if (error) reject(error)
          else resolve(result)
        })
      }).catch(withCallersStack)
    }
  }
  return DeadlineClient
}
