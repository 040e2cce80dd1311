import type {
  AdmissionFigures,
  AdmissionLimits,
  MeasuredAdmission,
  ShedReason,
} from '../../domain/common/admission.js'
import { ServiceBusyError } from '../../domain/common/errors.js'

interface Waiter {
  readonly start: () => void
  /** The wait's limit; none for a continuing task. */
  readonly timer: NodeJS.Timeout | undefined
}

/**
 * A bulkhead: runs one kind of expensive work (member search, the todo list, password hashing) with
 * a bounded number of tasks at once. Past that, a task waits in a bounded queue, first
 * come first served, for a bounded time; a task that finds the queue full, or waits too
 * long, is refused with ServiceBusyError before it has done or changed anything.
 *
 * A task marked `continuing` is the next step of work admitted earlier (the next page of
 * a list whose answer has started): it waits its turn like the others but is never
 * refused, and does not count against the queue's length.
 */
export class Bulkhead implements MeasuredAdmission {
  readonly #limits: AdmissionLimits
  #running = 0
  readonly #waiting: Waiter[] = []
  /** Of those waiting, the new tasks (the queue's length counts only them). */
  #waitingNew = 0
  readonly #shed: Record<ShedReason, number> = { 'queue-full': 0, 'queue-timeout': 0 }

  constructor(limits: AdmissionLimits) {
    this.#limits = limits
  }

  /** Seconds after which a refused client may find a place: one queue wait. */
  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.#limits.queueTimeoutMs / 1000))
  }

  figures(): AdmissionFigures {
    return { running: this.#running, waiting: this.#waiting.length, shed: { ...this.#shed } }
  }

  async run<T>(task: () => Promise<T>, { continuing = false } = {}): Promise<T> {
    await this.#admit(continuing)
    try {
      return await task()
    } finally {
      this.#release()
    }
  }

  #admit(continuing: boolean): Promise<void> | undefined {
    const { concurrency, queueLength, queueTimeoutMs } = this.#limits
    const unlimited = concurrency === 0
    if (unlimited || (this.#running < concurrency && this.#waiting.length === 0)) {
      this.#running += 1
      return undefined
    }
    if (!continuing && this.#waitingNew >= queueLength) return this.#refuse('queue-full')
    if (!continuing) this.#waitingNew += 1
    const leave = () => {
      if (!continuing) this.#waitingNew -= 1
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          if (waiter.timer) clearTimeout(waiter.timer)
          leave()
          this.#running += 1
          resolve()
        },
        timer: continuing
          ? undefined
          : setTimeout(() => {
              this.#waiting.splice(this.#waiting.indexOf(waiter), 1)
              leave()
              this.#refuse('queue-timeout').catch(reject)
            }, queueTimeoutMs),
      }
      this.#waiting.push(waiter)
    })
  }

  #refuse(reason: ShedReason): Promise<never> {
    this.#shed[reason] += 1
    return Promise.reject(new ServiceBusyError(this.retryAfterSeconds))
  }

  #release(): void {
    this.#running -= 1
    this.#waiting.shift()?.start()
  }
}
