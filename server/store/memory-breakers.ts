import type { BreakerRecord, BreakerStore } from './types.js';

/** Circuit breakers of one process (SQLite serves one instance): a map, atomic by being synchronous. */
export function createMemoryBreakers(): BreakerStore {
  const records = new Map<string, BreakerRecord>();
  return {
    async read(target) {
      return records.get(target) ?? null;
    },
    async update(target, change) {
      const next = change(records.get(target) ?? null);
      if (next) records.set(target, next);
      return next ?? records.get(target) ?? null;
    },
  };
}
