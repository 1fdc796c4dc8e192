import type { RateCounter } from '../types.js';

/** The counters as the one process reads them, at once (metering counts a request in its hold's synchronous step). */
export interface SyncRateCounters {
  addNow(key: string, windowStart: number, amount: number): number;
  getNow(key: string, windowStart: number): number;
}

/**
 * Rate-limit counters in memory: SQLite means one server process, and a counter that resets
 * with a restart only forgives one minute. A multi-instance backend shares them instead.
 *
 * One map per window, and only the two newest windows are kept (a request that began in the
 * previous minute may still add its tokens there): when a window opens, what is older goes in one
 * step, so every caller ever seen does not stay in memory, and no sweep walks the counters.
 */
export function createRateCounters(): RateCounter & SyncRateCounters {
  const windows = new Map<number, Map<string, number>>();
  const windowOf = (windowStart: number) => {
    let counters = windows.get(windowStart);
    if (!counters) {
      counters = new Map();
      windows.set(windowStart, counters);
      const kept = [...windows.keys()].sort((a, b) => b - a).slice(0, 2);
      for (const start of windows.keys()) if (!kept.includes(start)) windows.delete(start);
    }
    return counters;
  };
  const add = (key: string, windowStart: number, amount: number) => {
    const counters = windowOf(windowStart);
    const total = (counters.get(key) ?? 0) + amount;
    counters.set(key, total);
    return total;
  };
  const get = (key: string, windowStart: number) => windows.get(windowStart)?.get(key) ?? 0;
  return {
    addNow: add,
    getNow: get,
    add: async (key, windowStart, amount) => add(key, windowStart, amount),
    get: async (key, windowStart) => get(key, windowStart),
    addAndGet: async (key, readKey, windowStart, amount) => ({ added: add(key, windowStart, amount), read: get(readKey, windowStart) }),
  };
}
