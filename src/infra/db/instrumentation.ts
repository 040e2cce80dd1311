import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely'
import { DialectDecorator, DriverDecorator } from './engine/dialect-decorator.js'

/** What running a statement answers: at once (SQLite's direct reads) or later. */
export type Outcome<T> = T | Promise<T>

/**
 * One layer around running a statement (error translation, a span, the query log): it
 * calls `run` for the layers beneath it and answers their outcome, changed or watched.
 * A layer keeps a synchronous outcome synchronous, so a direct read stays promise-free.
 */
export type StatementLayer = <T>(
  sql: string,
  parameters: readonly unknown[],
  run: () => Outcome<T>,
) => Outcome<T>

interface Watch {
  /** Every failure, which it answers as the error to throw instead; default: as it is. */
  readonly failed?: (error: unknown) => unknown
  /** Told once the outcome is known; `error` is what is thrown, when it `failed`. */
  readonly settled?: (failed: boolean, error?: unknown) => void
}

/** `run`'s outcome, watched: synchronous when `run`'s is, with no promise added. */
export function watched<T>(run: () => Outcome<T>, { failed, settled }: Watch): Outcome<T> {
  const failure = (error: unknown) => {
    const thrown = failed ? failed(error) : error
    settled?.(true, thrown)
    return thrown
  }
  let outcome: Outcome<T>
  try {
    outcome = run()
  } catch (error) {
    throw failure(error)
  }
  if (!(outcome instanceof Promise)) {
    settled?.(false)
    return outcome
  }
  return outcome.then(
    (value) => {
      settled?.(false)
      return value
    },
    (error: unknown) => {
      throw failure(error)
    },
  )
}

/** The layers as one, the first outermost: each runs the next around the statement. */
export function layered(layers: readonly StatementLayer[]): StatementLayer {
  const [outer, ...rest] = layers
  if (!outer) return (_sql, _parameters, run) => run()
  if (rest.length === 0) return outer
  const inner = layered(rest)
  return (sql, parameters, run) => outer(sql, parameters, () => inner(sql, parameters, run))
}

export interface ExecutedQuery {
  readonly sql: string
  readonly parameters: readonly unknown[]
  readonly durationMs: number
}

/** Every statement with its parameters and duration, failed ones too, for `onQuery`. */
export function queryLog(onQuery: (query: ExecutedQuery) => void): StatementLayer {
  return (sql, parameters, run) => {
    const started = performance.now()
    return watched(run, {
      settled: () => onQuery({ sql, parameters, durationMs: performance.now() - started }),
    })
  }
}

export interface Instrumentation {
  /** Every statement a connection runs. */
  readonly statements: StatementLayer
  /** Every other driver call that can fail: connecting, BEGIN, COMMIT, ROLLBACK. */
  readonly calls: <T>(run: () => Promise<T>) => Promise<T>
}

class InstrumentedConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly statements: StatementLayer,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // The inner connection answers a promise, which every layer keeps: nothing is added.
    return Promise.resolve(
      this.statements(query.sql, query.parameters, () => this.inner.executeQuery<R>(query)),
    )
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize)
  }
}

const innerOf = (connection: DatabaseConnection) =>
  connection instanceof InstrumentedConnection ? connection.inner : connection

class InstrumentedDriver extends DriverDecorator {
  constructor(
    inner: Driver,
    private readonly instrumentation: Instrumentation,
  ) {
    super(inner)
  }

  override init(): Promise<void> {
    return this.instrumentation.calls(() => super.init())
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.instrumentation.calls(() => super.acquireConnection())
    return new InstrumentedConnection(inner, this.instrumentation.statements)
  }

  override beginTransaction(...[connection, settings]: Parameters<Driver['beginTransaction']>) {
    return this.instrumentation.calls(() => super.beginTransaction(innerOf(connection), settings))
  }

  override commitTransaction(connection: DatabaseConnection) {
    return this.instrumentation.calls(() => super.commitTransaction(innerOf(connection)))
  }

  override rollbackTransaction(connection: DatabaseConnection) {
    return this.instrumentation.calls(() => super.rollbackTransaction(innerOf(connection)))
  }

  override releaseConnection(connection: DatabaseConnection): Promise<void> {
    return super.releaseConnection(innerOf(connection))
  }
}

/**
 * A dialect whose every statement goes through the instrumentation's layers, the same
 * ones create-database.ts puts around the direct reads: one execution path for a
 * statement whether it is traced, logged, or neither.
 */
export class InstrumentedDialect extends DialectDecorator {
  constructor(
    inner: Dialect,
    private readonly instrumentation: Instrumentation,
  ) {
    super(inner)
  }

  override createDriver(): Driver {
    return new InstrumentedDriver(super.createDriver(), this.instrumentation)
  }
}
