import { describe, expect, it } from 'vitest';
import { describeSort, nextSort, sortRows, SORT_KEYS, type SortKey } from './sorting.js';

describe('sorting the list screens', () => {
  const rows = [
    { name: 'b', n: 2 },
    { name: 'a', n: 10 },
    { name: 'c', n: 2 },
  ];
  const keys: SortKey<(typeof rows)[number]>[] = [
    { name: 'name', of: (row) => row.name },
    { name: 'n', of: (row) => row.n },
  ];

  it('orders by text or by number (10 after 2), either way; stable for equal values', () => {
    expect(sortRows(rows, keys, { index: 0, descending: false }).map((row) => row.name)).toEqual(['a', 'b', 'c']);
    expect(sortRows(rows, keys, { index: 1, descending: false }).map((row) => row.name)).toEqual(['b', 'c', 'a']);
    expect(sortRows(rows, keys, { index: 1, descending: true }).map((row) => row.name)).toEqual(['a', 'b', 'c']);
    expect(sortRows(rows, keys, undefined)).toEqual(rows);
  });

  it('o cycles through the keys and back to the server order', () => {
    let sort = nextSort('billing', undefined);
    const seen: string[] = [];
    for (let i = 0; i < SORT_KEYS.billing.length; i++) {
      seen.push(describeSort('billing', sort));
      sort = nextSort('billing', sort);
    }
    expect(seen).toEqual(['sorted by date ▲', 'sorted by amount ▲', 'sorted by status ▲']);
    expect(sort).toBeUndefined();
    expect(describeSort('billing', { index: 1, descending: true })).toBe('sorted by amount ▼');
  });
});
