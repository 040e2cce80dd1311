/**
 * How a service runs one kind of expensive work (a search, a page of the todo list, a
 * password hash) within the instance's limits: at once, after a wait, or refused with
 * ServiceBusyError before anything was done. The limits themselves are operational
 * (infra/work/bulkhead.ts).
 */
export interface WorkAdmission {
  /** Runs `task` when admitted, sharing places fairly between clients. */
  run<T>(task: () => Promise<T>, options?: WorkOptions): Promise<T>
}

export interface WorkOptions {
  /**
   * Who asks: the key places are shared by (the rate limit's: a token's subject, else the
   * client's address). Work that names none shares one key with all such work.
   */
  readonly client?: string
  /**
   * The next step of work admitted earlier (the next page of a list whose answer has
   * started): it is never refused.
   */
  readonly continuing?: boolean
}

/** Why a task was refused. */
export type ShedReason = 'queue-full' | 'queue-timeout'

/** What one kind of work's admission has done so far, for the metrics. */
export interface AdmissionFigures {
  readonly running: number
  readonly waiting: number
  readonly shed: Readonly<Record<ShedReason, number>>
}

/** An admission that counts what it does. */
export interface MeasuredAdmission extends WorkAdmission {
  figures(): AdmissionFigures
}

/** How much of one kind of expensive work an instance takes on (decisions §9). */
export interface AdmissionLimits {
  /** Tasks run at once; 0: no limit (every task starts at once, nothing waits or is shed). */
  readonly concurrency: number
  /** Tasks that may wait for a place; one more is refused at once. */
  readonly queueLength: number
  /** Longest a task waits for a place before it is refused. */
  readonly queueTimeoutMs: number
}
