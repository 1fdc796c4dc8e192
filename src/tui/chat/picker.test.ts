import { describe, expect, it } from 'vitest';
import { displayLine } from './display-line.js';
import { FILTERED_SPAN, movePicker, pickerChoice, pickerMatches, pickerWindow, plainItems, type Picker, type PickerItems } from './picker.js';
import stringWidth from 'string-width';

const picker = (items: PickerItems, over: Partial<Picker> = {}): Picker => ({ purpose: 'history', title: 'History', items, filter: '', index: 0, ...over });

/** Items that count how many of them are read. */
function countedItems(count: number) {
  let reads = 0;
  const items = plainItems(Array.from({ length: count }, (_, i) => `entry ${i}`));
  return { items: { size: items.size, at: (index: number) => (reads++, items.at(index)) }, reads: () => reads };
}

describe('a picker over a long list', () => {
  it('reads only as many items as the rows it shows', () => {
    const { items, reads } = countedItems(10_000);
    const window = pickerWindow(picker(items), 10);
    expect(window.rows.map((item) => item.value)).toEqual(Array.from({ length: 10 }, (_, i) => `entry ${i}`));
    expect(reads()).toBeLessThanOrEqual(10);
  });

  it('lists the history newest first', () => {
    expect(pickerMatches(picker(plainItems(['old', 'new'], 'newestFirst')), 5).map((item) => item.value)).toEqual(['new', 'old']);
  });

  it('filters without regard to case, each value once, in order; ↑ ↓ stay on the matches', () => {
    const list = picker(plainItems(['Holds and ledgers', 'a ledger', 'nothing', 'a ledger', 'LEDGER?']), { filter: 'ledger' });
    expect(pickerMatches(list, 10).map((item) => item.value)).toEqual(['Holds and ledgers', 'a ledger', 'LEDGER?']);
    const last = movePicker(movePicker(movePicker(list, 1), 1), 1);
    expect(pickerChoice(last)?.value).toBe('LEDGER?');
    expect(movePicker(list, -1)).toBe(list);
    expect(pickerChoice(picker(plainItems(['a']), { filter: 'zzz' }))).toBeUndefined();
    // Typed text is no pattern.
    expect(pickerMatches(picker(plainItems(['a+b', 'aab']), { filter: 'a+b' }), 10).map((item) => item.value)).toEqual(['a+b']);
  });

  it('a long entry matches on its start and its end (what was typed around a paste), not deep inside', () => {
    const middle = 'x'.repeat(50_000);
    const entry = `look at this: ${middle} needle-in-the-middle ${middle} why does it fail?`;
    const matches = (filter: string) => pickerMatches(picker(plainItems([entry]), { filter }), 1).length === 1;
    expect(entry.length).toBeGreaterThan(2 * FILTERED_SPAN);
    expect(matches('LOOK AT')).toBe(true);
    expect(matches('why does it fail')).toBe(true);
    expect(matches('needle')).toBe(false);
  });
});

describe('a row of a list', () => {
  it('is cut to the width before anything measures it, line breaks shown as ⏎', () => {
    const huge = `first line\n${'word '.repeat(20_000)}`;
    const row = displayLine(huge, 40);
    expect(stringWidth(row)).toBeLessThanOrEqual(40);
    expect(row).toMatch(/^first line ⏎ word word .*…$/);
    expect(displayLine('short', 40)).toBe('short');
    expect(displayLine('exactly ten', 11)).toBe('exactly ten');
    expect(displayLine('exactly ten', 10)).toBe('exactly t…');
  });

  it('counts wide characters and emoji by their columns, and drops control characters', () => {
    const row = displayLine('漢字漢字漢字漢字', 9);
    expect(row).toBe('漢字漢字…');
    expect(stringWidth(displayLine('👋🏽'.repeat(50), 11))).toBeLessThanOrEqual(11);
    expect(displayLine('a\u001b[31mb\tc', 20)).toBe('a [31mb c');
  });
});
