import { describe, expect, it } from 'vitest';
import { timeOrderedId } from '../../server/ids.js';

describe('time-ordered ids (request ids, stored responses)', () => {
  it('are the prefix, _ and 32 hex digits, as OpenAI writes request ids', () => {
    expect(timeOrderedId('req')).toMatch(/^req_[0-9a-f]{32}$/);
    expect(timeOrderedId('resp')).toMatch(/^resp_[0-9a-f]{32}$/);
  });

  // The usage row and the ledger entry of a metered request are keyed by its id: ids in the order
  // they were made go in at the right edge of those indexes, not on a random page each.
  it('sort in the order of the millisecond they were made in', () => {
    const start = Date.UTC(2026, 10, 29, 12);
    const ids = Array.from({ length: 200 }, (_, i) => timeOrderedId('req', start + i));
    expect([...ids].sort()).toEqual(ids);
    expect(timeOrderedId('req', start).slice(0, 16)).toBe(`req_${start.toString(16).padStart(12, '0')}`);
  });

  it('made in the same millisecond, differ in 80 random bits', () => {
    const ids = Array.from({ length: 10_000 }, () => timeOrderedId('req', 0));
    expect(new Set(ids).size).toBe(ids.length);
    // Every random digit varies (none is the UUID's fixed version or variant digit).
    for (let digit = 16; digit < 36; digit++) expect(new Set(ids.map((id) => id[digit])).size).toBe(16);
  });
});
