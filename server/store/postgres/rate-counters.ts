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
  };
}
