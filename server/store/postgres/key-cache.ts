import type { KeyOwner } from '../types.js';

export type KeyCandidates = (KeyOwner & { secretHash: string })[];

/**
 * How long a cached lookup may answer. Other instances cannot clear this cache, so a key they
 * delete must age out of it: well within the promised second.
 */
export const KEY_CACHE_TTL_MS = 500;

/**
 * API-key lookups by prefix, cached in memory. `clear` drops every entry and also voids lookups
 * still in flight (a read that began before a write must not put the old answer back, nor answer
 * a lookup made after the write). An entry's age counts from when its read began, the latest
 * moment its answer is known to have been true.
 */
export function createKeyCache(now: () => number = Date.now) {
  const entries = new Map<string, { candidates: KeyCandidates; readAt: number }>();
  /** Reads under way: the lookups of a prefix that arrive while one is read wait for it (when an entry ages out under load, one read, not one per request). */
  const reading = new Map<string, { generation: number; readAt: number; answer: Promise<KeyCandidates> }>();
  let generation = 0;

  const cached = (prefix: string): KeyCandidates | undefined => {
    const entry = entries.get(prefix);
    if (!entry) return undefined;
    if (now() - entry.readAt >= KEY_CACHE_TTL_MS) {
      entries.delete(prefix);
      return undefined;
    }
    return entry.candidates;
  };

  return {
    /** The keys of `prefix`: cached, else from the read under way, else from `read` (only hits are kept: misses would let random keys grow the cache). */
    lookup(prefix: string, read: () => Promise<KeyCandidates>): Promise<KeyCandidates> {
      const hit = cached(prefix);
      if (hit) return Promise.resolve(hit);
      const under = reading.get(prefix);
      // A read begun since the last write, and recently enough that its answer could be cached.
      if (under && under.generation === generation && now() - under.readAt < KEY_CACHE_TTL_MS) return under.answer;
      const started = { generation, readAt: now() };
      const answer = read().then((candidates) => {
        if (candidates.length > 0 && started.generation === generation) entries.set(prefix, { candidates, readAt: started.readAt });
        return candidates;
      });
      const entry = { ...started, answer };
      reading.set(prefix, entry);
      const done = () => {
        if (reading.get(prefix) === entry) reading.delete(prefix);
      };
      answer.then(done, done);
      return answer;
    },

    clear(): void {
      generation++;
      entries.clear();
      reading.clear();
    },
  };
}

export type KeyCache = ReturnType<typeof createKeyCache>;
