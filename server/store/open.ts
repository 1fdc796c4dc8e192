import { isPostgresUrl } from './location.js';
import type { Synchronous } from './sqlite/database.js';
import type { Store } from './types.js';

/**
 * The store at `location`: a PostgreSQL URL (postgres://…) for several instances over one
 * database, else a SQLite file (or `:memory:`), the zero-config default. Each backend is loaded
 * only when used.
 */
export async function openStore(
  location: string,
  options: {
    synchronous?: Synchronous;
    poolSize?: number;
    now?: () => number;
    log?: (line: string) => void;
    /** How long written usage rows wait to be rolled up (rollup-schedule.ts); null: only when asked. */
    rollAfterMs?: number | null;
  } = {},
): Promise<Store> {
  if (isPostgresUrl(location)) {
    const { openPostgresStore } = await import('./postgres/index.js');
    return openPostgresStore(location, {
      ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
      ...(options.synchronous === undefined ? {} : { synchronous: options.synchronous }),
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.log === undefined ? {} : { log: options.log }),
      ...(options.rollAfterMs === undefined ? {} : { rollAfterMs: options.rollAfterMs }),
    });
  }
  const { createSqliteStore } = await import('./sqlite/index.js');
  return createSqliteStore(location, {
    ...(options.synchronous === undefined ? {} : { synchronous: options.synchronous }),
    ...(options.log === undefined ? {} : { log: options.log }),
    ...(options.rollAfterMs === undefined ? {} : { rollAfterMs: options.rollAfterMs }),
  });
}
