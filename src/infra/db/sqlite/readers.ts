import { setTimeout as sleep } from 'node:timers/promises'
import { Worker } from 'node:worker_threads'
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SqliteDialect,
} from 'kysely'
import { ServiceBusyError } from '../../../domain/common/errors.js'
import { readerScript } from './reader-script.js'
import type { ReaderReply, ReaderRequest, ReaderSettings } from './reader-worker.js'

/**
 * SQLite answers synchronously, so a long read on the main connection stops the event
 * loop, and every other request with it.
 * Long reads (member search, the todo list) run here instead: on reader threads, each
 * with a read-only connection of its own, in parallel with the main connection.
 *
 * A statement still running after `timeoutMs` is cancelled: its caller gets
 * ReadTimeoutError at once, and the thread is stopped. better-sqlite3 offers no way to
 * interrupt a statement, so the thread stops when SQLite hands control back, and only
 * then is its place given to a new thread: the CPU in use stays bounded. A read that
 * finds no reader free within `timeoutMs` (all busy, or stopping) is refused as busy.
 */

/** How long closing waits for the threads; one still inside a statement is left to the exit. */
const CLOSE_WAIT_MS = 100

/** A statement ran past the read timeout and was cancelled. */
export class ReadTimeoutError extends Error {
  readonly code = 'READ_TIMEOUT'
  constructor(timeoutMs: number) {
    super(`the read ran longer than ${timeoutMs} ms and was cancelled`)
    this.name = 'ReadTimeoutError'
  }
}

export interface ReadersOptions {
  readonly file: string
  /** Readers at most; 0: as many as reads at once. */
  readonly size: number
  readonly timeoutMs: number
  readonly busyTimeoutMs: number
}

/** Page cache per reader, in KiB: walks stream through indexes, the OS caches the file too. */
const READER_CACHE_KIB = 2048

/**
 * A reader's JavaScript holds one statement's rows at a time (a page of member ids, a
 * page of the todo list, at most the 1,000 members of an unpaged search): a small heap
 * is plenty, and each thread then costs a few MB instead of a default isolate's growth.
 */
const READER_HEAP = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 16 }

interface Pending {
  readonly resolve: (rows: unknown[]) => void
  readonly reject: (error: Error) => void
  readonly timer: NodeJS.Timeout
}

/** One reader thread; statements are sent one at a time by whoever holds it. */
class Reader {
  readonly #worker: Worker
  readonly #ready: Promise<void>
  readonly #pending = new Map<number, Pending>()
  #nextId = 0
  /** Settles when the thread has stopped, once it was told to (cancelled or closed). */
  stopped: Promise<void> | undefined

  constructor(private readonly options: ReadersOptions) {
    const settings: ReaderSettings = {
      file: options.file,
      busyTimeoutMs: options.busyTimeoutMs,
      cacheKib: READER_CACHE_KIB,
    }
    // Plain JavaScript with no flags of the process's own (`--input-type` refuses a file).
    this.#worker = new Worker(readerScript(), {
      workerData: settings,
      execArgv: [],
      resourceLimits: READER_HEAP,
    })
    this.#ready = new Promise((resolve, reject) => {
      this.#worker.on('message', (reply: ReaderReply | 'ready') => {
        if (reply === 'ready') resolve()
        else this.#settle(reply)
      })
      this.#worker.once('error', reject)
    })
    // Waited for by the first statement; a thread that cannot start fails that statement.
    this.#ready.catch(() => undefined)
    this.#worker.on('error', (error) => this.#failAll(error))
    this.#worker.on('exit', () => {
      this.stopped ??= Promise.resolve()
      this.#failAll(new Error('the SQLite reader thread stopped'))
    })
  }

  async run(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    await this.#ready
    if (this.stopped) throw new Error('the SQLite reader thread stopped')
    const id = this.#nextId++
    return new Promise<unknown[]>((resolve, reject) => {
      const timer = setTimeout(() => this.#cancel(id), this.options.timeoutMs)
      this.#pending.set(id, { resolve, reject, timer })
      this.#worker.postMessage({ id, sql, parameters } satisfies ReaderRequest)
    })
  }

  stop(): Promise<void> {
    this.stopped ??= this.#worker.terminate().then(() => undefined)
    return this.stopped
  }

  #cancel(id: number): void {
    const pending = this.#pending.get(id)
    if (!pending) return
    this.#pending.delete(id)
    pending.reject(new ReadTimeoutError(this.options.timeoutMs))
    void this.stop()
  }

  #settle(reply: ReaderReply): void {
    const pending = this.#pending.get(reply.id)
    if (!pending) return
    this.#pending.delete(reply.id)
    clearTimeout(pending.timer)
    if ('rows' in reply) pending.resolve(reply.rows)
    else pending.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }))
  }

  #failAll(error: Error): void {
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id)
      clearTimeout(pending.timer)
      pending.reject(error)
    }
  }
}

/**
 * At most `size` reader threads (0: as many as reads at once), each started when a read
 * finds none free, and kept; one is started at once, so that the first read does not
 * wait for one. Callers beyond `size` wait their turn.
 */
export class SqliteReaders {
  readonly #idle: Reader[] = []
  readonly #waiting: ((reader: Reader) => void)[] = []
  readonly #all = new Set<Reader>()
  #closed = false

  constructor(private readonly options: ReadersOptions) {
    this.#idle.push(this.#started())
  }

  async acquire(): Promise<Reader> {
    if (this.#closed) throw new Error('the SQLite readers are closed')
    const idle = this.#idle.pop()
    if (idle) return idle
    const { size, timeoutMs } = this.options
    if (size === 0 || this.#all.size < size) return this.#started()
    return new Promise((resolve, reject) => {
      const waiter = (reader: Reader) => {
        clearTimeout(timer)
        resolve(reader)
      }
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1)
        reject(new ServiceBusyError(Math.max(1, Math.ceil(timeoutMs / 1000))))
      }, timeoutMs)
      this.#waiting.push(waiter)
    })
  }

  release(reader: Reader): void {
    if (reader.stopped) {
      // A cancelled reader's place is taken by a new thread once its own has really stopped.
      reader.stopped.then(() => {
        this.#all.delete(reader)
        if (!this.#closed) this.#handOver(this.#started())
      })
      return
    }
    this.#handOver(reader)
  }

  async close(): Promise<void> {
    this.#closed = true
    const stopped = Promise.all([...this.#all].map((reader) => reader.stop()))
    await Promise.race([stopped, sleep(CLOSE_WAIT_MS, undefined, { ref: false })])
    this.#all.clear()
    this.#idle.length = 0
  }

  #handOver(reader: Reader): void {
    if (this.#closed) return
    const next = this.#waiting.shift()
    if (next) next(reader)
    else this.#idle.push(reader)
  }

  #started(): Reader {
    const reader = new Reader(this.options)
    this.#all.add(reader)
    return reader
  }
}

class ReaderConnection implements DatabaseConnection {
  constructor(readonly reader: Reader) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return { rows: (await this.reader.run(query.sql, query.parameters)) as R[] }
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered by the readers
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the SQLite readers do not stream; read in pages')
  }
}

class ReadersDriver implements Driver {
  #readers: SqliteReaders | undefined

  constructor(private readonly options: ReadersOptions) {}

  /** Kysely's first use: the threads start (and are stopped by destroy, which follows only an init). */
  async init(): Promise<void> {
    this.#readers = new SqliteReaders(this.options)
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new ReaderConnection(await this.#started().acquire())
  }
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'))
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'))
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // A cancelled reader has stopped, its transaction with it: nothing to roll back.
    if ((connection as ReaderConnection).reader.stopped) return
    await connection.executeQuery(CompiledQuery.raw('rollback'))
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.#started().release((connection as ReaderConnection).reader)
  }
  async destroy(): Promise<void> {
    await this.#readers?.close()
  }
  #started(): SqliteReaders {
    if (!this.#readers) throw new Error('the SQLite readers are not started')
    return this.#readers
  }
}

/**
 * Kysely over reader threads: SQLite's dialect (its SQL, adapter and introspection), its
 * statements run on whichever reader is free instead of one connection.
 */
export class ReaderThreadsDialect extends SqliteDialect {
  constructor(private readonly options: ReadersOptions) {
    super({
      database: () => Promise.reject(new Error('the reader threads open their own connections')),
    })
  }

  override createDriver(): Driver {
    return new ReadersDriver(this.options)
  }
}
