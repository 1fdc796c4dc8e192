import { describe, expect, it } from 'vitest';
import { barRows, fitBars } from './chart.js';

describe('fitBars', () => {
  it('gives each bucket a bar, two or three columns wide when there is room', () => {
    expect(fitBars([1, 2, 3], 60)).toEqual({ bars: [1, 2, 3], group: 1, barWidth: 3 });
    expect(fitBars(new Array(30).fill(1), 60)).toMatchObject({ group: 1, barWidth: 2 });
  });

  it('sums neighbouring buckets when there are more buckets than columns', () => {
    const fitted = fitBars([1, 1, 2, 2, 3, 3, 4], 4);
    expect(fitted).toEqual({ bars: [2, 4, 6, 4], group: 2, barWidth: 1 });
  });
});

describe('barRows', () => {
  it('draws the tallest bar full height and the others in proportion, top row first', () => {
    expect(barRows([4, 2, 0], 2, 1)).toEqual(['█  ', '██ ']);
  });

  it('keeps a tiny value visible and leaves a zero empty', () => {
    const rows = barRows([1000, 1, 0], 4, 1);
    expect(rows.at(-1)).toBe('█▁ ');
  });

  it('puts a gap between bars that are wider than one column', () => {
    expect(barRows([1, 1], 1, 3)).toEqual(['██ ██ ']);
  });

  it('draws nothing but blanks when every value is zero', () => {
    expect(barRows([0, 0], 2, 1)).toEqual(['  ', '  ']);
  });
});
