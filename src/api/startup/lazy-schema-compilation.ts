import { setImmediate as nextTurn } from 'node:timers/promises'

/** A validator or a serializer: Fastify calls each with the one value it checks or writes. */
type Compiled = (input: never) => unknown

/**
 * Route schemas compiled when first needed instead of all at start. Fastify compiles
 * every validator and serializer before it listens; for this service that was about a
 * third of its cold start. Deferred, a new instance answers its first request sooner,
 * and `compileRemaining` (run once it listens) compiles the rest between requests, so
 * only a request arriving in those first milliseconds pays for its own route's compile.
 */
export class LazySchemaCompilation {
  readonly #pending = new Set<() => void>()
  #stopped = false

  /** `compiler` with the same signature, whose results compile on their first call. */
  defer<Route, Function extends Compiled>(
    compiler: (route: Route) => Function,
  ): (route: Route) => Function {
    return (route) => {
      let compiled: Function | undefined
      const compile = (): Function => {
        if (compiled === undefined) {
          compiled = compiler(route)
          this.#pending.delete(compile)
        }
        return compiled
      }
      this.#pending.add(compile)
      // One parameter, not `...args`: a rest-and-spread call on every request costs
      // more than a call with one value (bench:instructions counts it).
      return ((input: Parameters<Function>[0]) => (compiled ?? compile())(input)) as Function
    }
  }

  /** Compiles what no request has needed yet, one schema per turn of the event loop. */
  async compileRemaining(): Promise<void> {
    for (const compile of this.#pending) {
      if (this.#stopped) return
      compile()
      await nextTurn()
    }
  }

  stop(): void {
    this.#stopped = true
  }
}
