import { describe, expect, it } from 'vitest';
import { createRateCounters } from '../../server/store/sqlite/rate-counters.js';

const MINUTE = 60_000;

describe('SQLite rate counters (in memory)', () => {
  it('count per key and window, keep the previous window for late additions, and forget older ones', async () => {
    const counters = createRateCounters();
    expect(await counters.add('requests:key:a', 0, 1)).toBe(1);
    expect(await counters.add('requests:key:a', 0, 2)).toBe(3);
    expect(await counters.add('tokens:user:x', 0, 50)).toBe(50);
    // A new window starts from zero; a request that began in the last one still adds there.
    expect(await counters.add('requests:key:a', MINUTE, 1)).toBe(1);
    expect(await counters.add('tokens:user:x', 0, 5)).toBe(55);
    expect(await counters.get('tokens:user:x', 0)).toBe(55);
    expect(await counters.get('tokens:user:x', MINUTE)).toBe(0);
    // Two windows on, a caller not seen since holds nothing any more: it is not kept in memory.
    await counters.add('requests:key:b', 2 * MINUTE, 1);
    expect(await counters.get('tokens:user:x', 0)).toBe(0);
    expect(await counters.get('requests:key:a', 0)).toBe(0);
    expect(await counters.get('requests:key:a', MINUTE)).toBe(1);
  });
});
