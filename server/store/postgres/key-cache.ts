import type { KeyOwner } from '../types.js';

export type KeyCandidates = (KeyOwner & { secretHash: string })[];

/**
 * How long a cached lookup may answer. Other instances cannot clear this cache, so a key they
 * delete must age out of it: well within the promised second.
 */
export const KEY_CACHE_TTL_MS = 500;

/**
 * API-key lookups by prefix, cached in memory. `clear` drops every entry and also voids lookups
 * still in flight (a read that began before a write must not put the old answer back). An entry's
 * age counts from when its read began, the latest moment its answer is known to have been true.
 */
export function createKeyCache(now: () => number = Date.now) {
  const entries = new Map<string, { candidates: KeyCandidates; readAt: number }>();
  let generation = 0;

  return {
    get(prefix: string): KeyCandidates | undefined {
      const entry = entries.get(prefix);
      if (!entry) return undefined;
      if (now() - entry.readAt >= KEY_CACHE_TTL_MS) {
        entries.delete(prefix);
        return undefined;
      }
      return entry.candidates;
    },

    /** Call before reading; pass the ticket to `set` with what was read. */
    ticket(): { generation: number; readAt: number } {
      return { generation, readAt: now() };
    },

    set(prefix: string, candidates: KeyCandidates, ticket: { generation: number; readAt: number }): void {
      if (ticket.generation !== generation) return;
      entries.set(prefix, { candidates, readAt: ticket.readAt });
    },

    clear(): void {
      generation++;
      entries.clear();
    },
  };
}

export type KeyCache = ReturnType<typeof createKeyCache>;
