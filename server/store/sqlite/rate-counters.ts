import type { RateCounter } from '../types.js';

/**
 * Rate-limit counters in memory: SQLite means one server process, and a counter that resets
 * with a restart only forgives one minute. A multi-instance backend shares them instead.
 */
export function createRateCounters(): RateCounter {
  const counters = new Map<string, { windowStart: number; total: number }>();
  return {
    async add(key, windowStart, amount) {
      const counter = counters.get(key);
      // A new window starts from zero; the old entry is reused, so the map holds one per key.
      const total = (counter && counter.windowStart === windowStart ? counter.total : 0) + amount;
      counters.set(key, { windowStart, total });
      return total;
    },
    async get(key, windowStart) {
      const counter = counters.get(key);
      return counter && counter.windowStart === windowStart ? counter.total : 0;
    },
  };
}
