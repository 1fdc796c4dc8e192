import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Store } from '../../server/store/types.js';
import { describeEachBackend } from '../helpers/stores.js';

/** The rate counters' one-step count and read (a request counted, its tokens so far), on each backend. */
describeEachBackend('rate counters', (backend) => {
  let store: Store;
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ store, close } = await backend.open());
  });
  afterEach(async () => close());

  const WINDOW = 1_764_064_800_000;

  it('addAndGet adds to one counter and reads another, in that window only', async () => {
    expect(await store.rateCounters.addAndGet('requests:a', 'tokens:a', WINDOW, 1)).toEqual({ added: 1, read: 0 });
    await store.rateCounters.add('tokens:a', WINDOW, 250);
    await store.rateCounters.add('tokens:a', WINDOW - 60_000, 9_999);
    expect(await store.rateCounters.addAndGet('requests:a', 'tokens:a', WINDOW, 1)).toEqual({ added: 2, read: 250 });
    expect(await store.rateCounters.get('requests:a', WINDOW)).toBe(2);
    // Another subject's counters are its own.
    expect(await store.rateCounters.addAndGet('requests:b', 'tokens:b', WINDOW, 1)).toEqual({ added: 1, read: 0 });
  });

  it('adds made together each get the total after their own, and all count', async () => {
    await store.rateCounters.add('tokens:d', WINDOW, 100);
    const totals = await Promise.all([5, 20, 1, 300].map((amount) => store.rateCounters.add('tokens:d', WINDOW, amount)));
    expect(totals).toEqual([105, 125, 126, 426]);
    // Another counter added to in the same turn is its own.
    const [other] = await Promise.all([store.rateCounters.add('tokens:e', WINDOW, 7), store.rateCounters.add('tokens:d', WINDOW, 4)]);
    expect(other).toBe(7);
    expect(await store.rateCounters.get('tokens:d', WINDOW)).toBe(430);
    expect(await store.rateCounters.get('tokens:d', WINDOW + 60_000)).toBe(0);
  });

  it('concurrent counts each see a distinct total', async () => {
    const counts = await Promise.all(Array.from({ length: 20 }, () => store.rateCounters.addAndGet('requests:c', 'tokens:c', WINDOW, 1)));
    expect(counts.map((count) => count.added).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});
