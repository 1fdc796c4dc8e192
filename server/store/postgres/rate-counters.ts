import type { Sql } from './database.js';
import type { RateCounter } from '../types.js';

/**
 * Rate-limit counters every instance shares: one upsert adds and returns the window's total, so
 * N instances enforce one limit exactly. Windows past are deleted by the instances' sweep.
 */
export function createRateCounters(sql: Sql): RateCounter {
  return {
    async add(key, windowStart, amount) {
      const [row] = await sql<{ total: number }[]>`
        INSERT INTO rate_counters (key, window_start, total) VALUES (${key}, ${windowStart}, ${amount})
        ON CONFLICT (key, window_start) DO UPDATE SET total = rate_counters.total + EXCLUDED.total
        RETURNING total`;
      return row?.total ?? amount;
    },
    async get(key, windowStart) {
      const [row] = await sql<{ total: number }[]>`SELECT total FROM rate_counters WHERE key = ${key} AND window_start = ${windowStart}`;
      return row?.total ?? 0;
    },
    async addAndGet(key, readKey, windowStart, amount) {
      // One statement for both (a request's count and its tokens so far): the read is of another
      // key, so the statement's snapshot gives it exactly as a separate SELECT would.
      const [row] = await sql<{ added: number; read: number }[]>`
        WITH added AS (
          INSERT INTO rate_counters (key, window_start, total) VALUES (${key}, ${windowStart}, ${amount})
          ON CONFLICT (key, window_start) DO UPDATE SET total = rate_counters.total + EXCLUDED.total
          RETURNING total
        )
        SELECT (SELECT total FROM added) AS added,
               COALESCE((SELECT total FROM rate_counters WHERE key = ${readKey} AND window_start = ${windowStart}), 0) AS read`;
      return { added: row?.added ?? amount, read: row?.read ?? 0 };
    },
  };
}
