import { describe, expect, it } from 'vitest';
import { helpLayout } from './help.js';
import { clampScroll, scrollBy, scrollPosition } from './pager.js';

const widthOf = (layout: ReturnType<typeof helpLayout>) =>
  Math.max(...layout.rows.map((row) => row.reduce((sum, cell, index) => sum + (index < row.length - 1 ? layout.columnWidth : [...cell.keys, ...cell.text].length), 0)));

describe('the help layout', () => {
  it('fits the width it is given, in as many columns as it holds', () => {
    for (const width of [40, 60, 80, 100, 200]) {
      const layout = helpLayout('apps', width);
      expect(widthOf(layout), String(width)).toBeLessThanOrEqual(width);
      for (const row of layout.rows) for (const cell of row) expect([...cell.keys, ...cell.text].length).toBeLessThan(layout.columnWidth);
    }
    expect(helpLayout('apps', 60).rows[0]).toHaveLength(1);
    expect(helpLayout('apps', 80).rows[0]).toHaveLength(2);
    expect(helpLayout('apps', 200).rows[0]).toHaveLength(3);
  });

  it('is shorter the wider it is', () => {
    expect(helpLayout('apps', 200).rows.length).toBeLessThan(helpLayout('apps', 80).rows.length);
    expect(helpLayout('apps', 80).rows.length).toBeLessThan(helpLayout('apps', 60).rows.length);
  });
});

describe('scrolling', () => {
  it('moves by lines and pages and stops where the last line is at the bottom', () => {
    expect(scrollBy('down', 0, 30, 10)).toBe(1);
    expect(scrollBy('up', 0, 30, 10)).toBe(0);
    expect(scrollBy('pageDown', 0, 30, 10)).toBe(9);
    expect(scrollBy('last', 0, 30, 10)).toBe(20);
    expect(scrollBy('first', 20, 30, 10)).toBe(0);
    expect(scrollBy('select', 3, 30, 10)).toBeNull();
    expect(clampScroll(25, 30, 10)).toBe(20);
    expect(clampScroll(5, 4, 10)).toBe(0);
  });

  it('says where the window is, and nothing when all fits', () => {
    expect(scrollPosition(0, 30, 10)).toBe('lines 1–10 of 30 ↓');
    expect(scrollPosition(20, 30, 10)).toBe('lines 21–30 of 30 ↑');
    expect(scrollPosition(0, 5, 10)).toBe('');
  });
});
