import type {
  AdmissionFigures,
  AdmissionLimits,
  MeasuredAdmission,
  ShedReason,
  WorkOptions,
} from '../../domain/common/admission.js'
import { ServiceBusyError } from '../../domain/common/errors.js'

interface Waiter {
  readonly client: string
  /** When it began to wait, as a count: the smaller waited longer. */
  readonly order: number
  readonly continuing: boolean
  readonly start: () => void
  readonly refuse: (reason: ShedReason) => void
}

/** One client's share: what it runs and what it has waiting, oldest first. */
interface Share {
  running: number
  /** When one of its tasks last started, as a count; -1 before the first. */
  lastStarted: number
  readonly waiting: Waiter[]
}

/** The client of work that names none: all such work shares one share. */
const ANONYMOUS = ''

/**
 * A bulkhead: runs one kind of expensive work (member search, the todo list, password
 * hashing) with a bounded number of tasks at once. Past that, a task waits in a bounded
 * queue for a bounded time; a task refused (the queue full, or the wait too long) gets
 * ServiceBusyError before it has done or changed anything.
 *
 * Places and queue slots are shared fairly between clients (decisions §9): a freed place
 * goes to the waiting client that runs the fewest tasks (among equals, the one served
 * longest ago), so a client within its share waits at most for one task to end, whatever
 * another client asks for. A full queue makes room for a client by refusing the newest
 * task of the client with the most waiting, when that client has more waiting than the
 * newcomer's; otherwise the newcomer is refused. One client alone may use every place.
 *
 * A task marked `continuing` is the next step of work admitted earlier (the next page of
 * a list whose answer has started): it waits its turn like the others but is never
 * refused, and does not count against the queue's length.
 */
export class Bulkhead implements MeasuredAdmission {
  readonly #limits: AdmissionLimits
  #running = 0
  /** Waiting tasks, continuing ones included. */
  #waiting = 0
  /** Of those waiting, the new tasks (the queue's length counts only them). */
  #waitingNew = 0
  /** Each client running or waiting, by its key; a client with neither is forgotten. */
  readonly #shares = new Map<string, Share>()
  readonly #shed: Record<ShedReason, number> = { 'queue-full': 0, 'queue-timeout': 0 }
  #arrivals = 0
  #starts = 0

  constructor(limits: AdmissionLimits) {
    this.#limits = limits
  }

  /** Seconds after which a refused client may find a place: one queue wait. */
  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.#limits.queueTimeoutMs / 1000))
  }

  figures(): AdmissionFigures {
    return { running: this.#running, waiting: this.#waiting, shed: { ...this.#shed } }
  }

  async run<T>(task: () => Promise<T>, options: WorkOptions = {}): Promise<T> {
    const client = options.client ?? ANONYMOUS
    await this.#admit(client, options.continuing === true)
    try {
      return await task()
    } finally {
      this.#release(client)
    }
  }

  #shareOf(client: string): Share {
    let share = this.#shares.get(client)
    if (!share) {
      share = { running: 0, lastStarted: -1, waiting: [] }
      this.#shares.set(client, share)
    }
    return share
  }

  #forgetIfIdle(client: string, share: Share): void {
    if (share.running === 0 && share.waiting.length === 0) this.#shares.delete(client)
  }

  #admit(client: string, continuing: boolean): Promise<void> | undefined {
    const { concurrency, queueLength, queueTimeoutMs } = this.#limits
    if (concurrency === 0) return undefined
    const share = this.#shareOf(client)
    if (this.#running < concurrency && this.#waiting === 0) {
      this.#started(share)
      return undefined
    }
    if (!continuing && this.#waitingNew >= queueLength && !this.#makeRoomFor(share)) {
      this.#forgetIfIdle(client, share)
      return this.#refused('queue-full')
    }
    return new Promise<void>((resolve, reject) => {
      const timer = continuing
        ? undefined
        : setTimeout(() => this.#refuseWaiting(waiter, 'queue-timeout'), queueTimeoutMs)
      const waiter: Waiter = {
        client,
        order: this.#arrivals++,
        continuing,
        start: () => {
          clearTimeout(timer)
          this.#started(share)
          resolve()
        },
        refuse: (reason) => {
          clearTimeout(timer)
          this.#refused(reason).catch(reject)
        },
      }
      share.waiting.push(waiter)
      this.#waiting += 1
      if (!continuing) this.#waitingNew += 1
    })
  }

  /**
   * Frees a queue slot for `share` by refusing the newest new task of the client with the
   * most waiting, if that is more than `share` has; false when no one holds more.
   */
  #makeRoomFor(share: Share): boolean {
    let heaviest: Share | undefined
    for (const other of this.#shares.values()) {
      if (!heaviest || other.waiting.length > heaviest.waiting.length) heaviest = other
    }
    if (!heaviest || heaviest === share || heaviest.waiting.length <= share.waiting.length + 1) {
      return false
    }
    const newest = heaviest.waiting.findLast((waiter) => !waiter.continuing)
    if (!newest) return false
    this.#refuseWaiting(newest, 'queue-full')
    return true
  }

  #started(share: Share): void {
    this.#running += 1
    share.running += 1
    share.lastStarted = this.#starts++
  }

  #refused(reason: ShedReason): Promise<never> {
    this.#shed[reason] += 1
    return Promise.reject(new ServiceBusyError(this.retryAfterSeconds))
  }

  /** Takes a waiting task out of its client's queue, to start it or refuse it. */
  #leave(waiter: Waiter): void {
    const share = this.#shares.get(waiter.client)
    if (!share) return
    const at = share.waiting.indexOf(waiter)
    if (at === -1) return
    share.waiting.splice(at, 1)
    this.#waiting -= 1
    if (!waiter.continuing) this.#waitingNew -= 1
  }

  /** Takes a waiting task out and refuses it; its client is forgotten if that was all. */
  #refuseWaiting(waiter: Waiter, reason: ShedReason): void {
    this.#leave(waiter)
    const share = this.#shares.get(waiter.client)
    if (share) this.#forgetIfIdle(waiter.client, share)
    waiter.refuse(reason)
  }

  #release(client: string): void {
    this.#running -= 1
    const share = this.#shares.get(client)
    if (share) {
      share.running -= 1
      this.#forgetIfIdle(client, share)
    }
    const next = this.#nextWaiter()
    if (!next) return
    this.#leave(next)
    next.start()
  }

  /**
   * The oldest task of the waiting client that runs the fewest; among clients that run
   * as many, of the one whose last task started longest ago (round robin), and among
   * those the task that has waited longest.
   */
  #nextWaiter(): Waiter | undefined {
    let chosen: Share | undefined
    for (const share of this.#shares.values()) {
      if (share.waiting.length > 0 && (!chosen || this.#before(share, chosen))) chosen = share
    }
    return chosen?.waiting[0]
  }

  #before(share: Share, other: Share): boolean {
    if (share.running !== other.running) return share.running < other.running
    if (share.lastStarted !== other.lastStarted) return share.lastStarted < other.lastStarted
    return (share.waiting[0]?.order ?? 0) < (other.waiting[0]?.order ?? 0)
  }
}
