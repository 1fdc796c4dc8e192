import type { Sql } from './database.js';
import { createTurnGroups } from './turn-groups.js';
import type { RateCounter } from '../types.js';

interface PendingAdd {
  amount: number;
  resolve(total: number): void;
  reject(error: unknown): void;
}

/**
 * Rate-limit counters every instance shares: one upsert adds and returns the window's total, so
 * N instances enforce one limit exactly. Windows past are deleted by the instances' sweep.
 * Additions to one counter that arrive in the same turn of the event loop, or while its upsert
 * before runs (the tokens of requests settled together), are one upsert of their sum; each caller gets the total as it
 * stood after its own addition.
 */
export function createRateCounters(sql: Sql): RateCounter {
  const upsert = async (key: string, windowStart: number, amount: number) => {
    const [row] = await sql<{ total: number }[]>`
      INSERT INTO rate_counters (key, window_start, total) VALUES (${key}, ${windowStart}, ${amount})
      ON CONFLICT (key, window_start) DO UPDATE SET total = rate_counters.total + EXCLUDED.total
      RETURNING total`;
    return row?.total ?? amount;
  };

  const additions = createTurnGroups<{ key: string; windowStart: number }, PendingAdd>(({ key, windowStart }, adds) => {
    const sum = adds.reduce((total, add) => total + add.amount, 0);
    return upsert(key, windowStart, sum).then(
      (total) => {
        // The additions in their order: each one's total leaves out those after it.
        let after = sum;
        for (const add of adds) {
          after -= add.amount;
          add.resolve(total - after);
        }
      },
      (error: unknown) => adds.forEach((add) => add.reject(error)),
    );
  });

  return {
    add(key, windowStart, amount) {
      return new Promise<number>((resolve, reject) => {
        additions.add(`${windowStart}:${key}`, { key, windowStart }, { amount, resolve, reject });
      });
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
