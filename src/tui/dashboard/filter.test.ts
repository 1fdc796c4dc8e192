import { describe, expect, it } from 'vitest';
import { filterRows } from './filter.js';

describe('filterRows', () => {
  const rows = [
    { name: 'Shop east', app_uuid: 'a1', balance: 120, tags: ['x'] },
    { name: 'Shop West', app_uuid: 'b2', balance: 7, tags: ['shop'] },
    { name: 'Blog', app_uuid: 'c3', balance: 0, tags: [] },
  ];

  it('keeps the rows whose text or number fields hold every word, any case, in order', () => {
    expect(filterRows(rows, 'shop').map((row) => row.app_uuid)).toEqual(['a1', 'b2']);
    expect(filterRows(rows, 'SHOP  west').map((row) => row.app_uuid)).toEqual(['b2']);
    expect(filterRows(rows, '120').map((row) => row.app_uuid)).toEqual(['a1']);
  });

  it('looks only one level deep, and no filter keeps all', () => {
    expect(filterRows(rows, 'blog shop')).toEqual([]);
    expect(filterRows(rows, '   ')).toHaveLength(3);
    expect(filterRows(rows, undefined)).toHaveLength(3);
    expect(filterRows([{ name: 'Blog', tags: ['shop'] }], 'shop')).toEqual([]);
  });
});
