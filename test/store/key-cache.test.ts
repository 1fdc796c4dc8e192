import { describe, expect, it } from 'vitest';
import { createKeyCache, KEY_CACHE_TTL_MS, type KeyCandidates } from '../../server/store/postgres/key-cache.js';

/** The shared store's key lookups (server/store/postgres/key-cache.ts), with its clock in the test's hand. */
describe('the key cache of the shared store', () => {
  const candidates = (name: string) => [{ secretHash: name }] as unknown as KeyCandidates;

  /** A read that answers when the test says so, counting how often it was asked. */
  function controlledRead() {
    const pending: ((answer: KeyCandidates) => void)[] = [];
    return {
      read: () => new Promise<KeyCandidates>((resolve) => pending.push(resolve)),
      get asked() {
        return pending.length;
      },
      answer: (i: number, value: KeyCandidates) => pending[i]?.(value),
    };
  }

  /** Two lookups that each made a read of their own: each gets its own read's answer. */
  async function expectReadApart(store: ReturnType<typeof controlledRead>, first: Promise<KeyCandidates>, second: Promise<KeyCandidates>) {
    expect(store.asked).toBe(2);
    store.answer(0, candidates('old'));
    store.answer(1, candidates('new'));
    expect(await first).toEqual(candidates('old'));
    expect(await second).toEqual(candidates('new'));
  }

  it('lookups that arrive while a prefix is read wait for that read: one read, not one each', async () => {
    const cache = createKeyCache(() => 0);
    const store = controlledRead();
    const answers = Array.from({ length: 32 }, () => cache.lookup('sk_live_abc', store.read));
    expect(store.asked).toBe(1);
    store.answer(0, candidates('one'));
    for (const answer of answers) expect(await answer).toEqual(candidates('one'));
    // Cached now: no read.
    expect(await cache.lookup('sk_live_abc', store.read)).toEqual(candidates('one'));
    expect(store.asked).toBe(1);
  });

  it('a lookup after a write does not take the answer of a read begun before it', async () => {
    const cache = createKeyCache(() => 0);
    const store = controlledRead();
    const before = cache.lookup('sk_live_abc', store.read);
    cache.clear();
    const after = cache.lookup('sk_live_abc', store.read);
    await expectReadApart(store, before, after);
    // The read begun before the write put nothing back: the cache holds the newer answer.
    expect(await cache.lookup('sk_live_abc', store.read)).toEqual(candidates('new'));
    expect(store.asked).toBe(2);
  });

  it('an entry ages out, and a miss is never kept', async () => {
    let now = 1_000;
    const cache = createKeyCache(() => now);
    const store = controlledRead();
    const first = cache.lookup('sk_live_abc', store.read);
    store.answer(0, candidates('one'));
    await first;
    now += KEY_CACHE_TTL_MS - 1;
    await cache.lookup('sk_live_abc', store.read);
    expect(store.asked).toBe(1);
    now += 1;
    const aged = cache.lookup('sk_live_abc', store.read);
    expect(store.asked).toBe(2);
    store.answer(1, []);
    expect(await aged).toEqual([]);
    const again = cache.lookup('sk_live_abc', store.read);
    expect(store.asked).toBe(3);
    store.answer(2, []);
    await again;
  });

  it('a read that runs longer than an entry may live answers only the lookups made while it was young', async () => {
    let now = 0;
    const cache = createKeyCache(() => now);
    const store = controlledRead();
    const early = cache.lookup('sk_live_abc', store.read);
    now += KEY_CACHE_TTL_MS;
    const late = cache.lookup('sk_live_abc', store.read);
    await expectReadApart(store, early, late);
  });

  it('a failed read fails the lookups that waited for it, and the next lookup reads again', async () => {
    const cache = createKeyCache(() => 0);
    let reads = 0;
    const failing = () => {
      reads++;
      return Promise.reject(new Error('connection lost'));
    };
    const lookups = [cache.lookup('sk_live_abc', failing), cache.lookup('sk_live_abc', failing)];
    for (const lookup of lookups) await expect(lookup).rejects.toThrow('connection lost');
    expect(reads).toBe(1);
    await expect(cache.lookup('sk_live_abc', failing)).rejects.toThrow('connection lost');
    expect(reads).toBe(2);
  });
});
