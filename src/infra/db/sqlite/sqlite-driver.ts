import type SqliteDatabase from 'better-sqlite3'

/**
 * The better-sqlite3 release for this Node.js. Version 13 is built on Node-API 10 (Node
 * 22.14 and later, Node 24) and ships prebuilt; version 12 is the last to load on Node 20.
 * Version 12 built against Node 24.19 or later aborts the process the first time the
 * garbage collector frees one of its statements or databases (an assertion in
 * RemoveEnvironmentCleanupHook), so it serves only the runtimes 13 cannot. Both have the
 * same API. When Node 20 support ends, `better-sqlite3-napi` becomes `better-sqlite3`.
 *
 * Version 13 is held at 13.0.3 (SQLite 3.53.4): from 13.1.1 on it bundles SQLite 3.54.1,
 * which prepares a statement reading two tables again each time a parameter is bound.
 * Every member lookup by id (a join) would pay a parse (docs/performance.md, "SQLite 3.54
 * prepares a join again").
 */
export async function loadSqliteDriver(): Promise<typeof SqliteDatabase> {
  const module =
    Number(process.versions.napi) >= 10
      ? await import('better-sqlite3-napi')
      : await import('better-sqlite3')
  return module.default
}
