import type { IsolatedDatabase } from './databases.js'

/**
 * Row triggers created through SQL from outside the service, to make one step of its
 * work fail, do nothing or hold still, on either database. Each returns a function that
 * drops it again.
 */

export interface TriggerSpec {
  readonly name: string
  readonly table: string
  readonly event: 'insert' | 'update'
  /**
   * fail: the statement raises an error. skip: the row is left alone (0 rows).
   * pause: the statement holds still until the test lets it go (see `pauseUntil`).
   */
  readonly action: 'fail' | 'skip' | 'pause'
}

/** The PostgreSQL advisory lock a paused statement waits for. */
export const PAUSE_LOCK = 727_001

/**
 * SQLite cannot sleep or wait inside a trigger; a count over a cross join of this table
 * with itself three times (10^9 rows) keeps the statement, and the service process,
 * busy for many seconds. A test that pauses there kills the process.
 */
const SLOW_TABLE = 'pause_rows'

function sqliteBody(action: TriggerSpec['action']): string {
  if (action === 'fail') return "select raise(abort, 'injected');"
  if (action === 'skip') return 'select raise(ignore);'
  return `select count(*) from ${SLOW_TABLE} a, ${SLOW_TABLE} b, ${SLOW_TABLE} c;`
}

function postgresBody(action: TriggerSpec['action']): string {
  if (action === 'fail') return "raise exception 'injected';"
  if (action === 'skip') return 'return null;'
  return `perform pg_advisory_xact_lock(${PAUSE_LOCK}); return new;`
}

export async function addTrigger(
  database: IsolatedDatabase,
  spec: TriggerSpec,
): Promise<() => Promise<void>> {
  const { name, table, event, action } = spec
  if (database.config.kind === 'sqlite') {
    if (action === 'pause') {
      await database.exec(
        `create table if not exists ${SLOW_TABLE} (n integer);
         delete from ${SLOW_TABLE};
         with recursive r(n) as (select 1 union all select n + 1 from r where n < 1000)
         insert into ${SLOW_TABLE} select n from r;`,
      )
    }
    await database.exec(
      `create trigger ${name} before ${event} on ${table} begin ${sqliteBody(action)} end`,
    )
    return () => database.exec(`drop trigger if exists ${name}`)
  }
  await database.exec(
    `create function ${name}() returns trigger language plpgsql as $$ begin ${postgresBody(action)} end $$;
     create trigger ${name} before ${event} on ${table} for each row execute function ${name}();`,
  )
  return () =>
    database.exec(`drop trigger if exists ${name} on ${table}; drop function if exists ${name}()`)
}
