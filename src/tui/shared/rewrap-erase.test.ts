import { describe, expect, it } from 'vitest';
import { eraseRewrappedFrame, terminalRows } from './rewrap-erase.js';

describe('terminalRows', () => {
  it('counts the rows a line takes once wrapped, colours aside', () => {
    expect(terminalRows('', 60)).toBe(1);
    expect(terminalRows('x'.repeat(60), 60)).toBe(1);
    expect(terminalRows('x'.repeat(61), 60)).toBe(2);
    expect(terminalRows(`\u001b[90m${'x'.repeat(98)}\u001b[39m`, 60)).toBe(2);
  });

  it('never splits a wide character: it goes to the next row whole', () => {
    // 59 columns, then a character two wide: it does not fit in the 60th column.
    expect(terminalRows(`${'x'.repeat(59)}界`, 60)).toBe(2);
    expect(terminalRows(`${'x'.repeat(58)}界`, 60)).toBe(1);
  });
});

describe('eraseRewrappedFrame', () => {
  it('writes nothing when every line still takes one row', () => {
    expect(eraseRewrappedFrame('a\nb\nstatus\n', 60)).toBe('');
  });

  it('erases every row of a rewrapped frame and leaves the cursor where Ink counts', () => {
    // Two lines of 98 columns take 4 rows at 60, plus 2: 6 rows above the cursor where Ink counts 4.
    const frame = `${'a'.repeat(98)}\n${'b'.repeat(98)}\n\n›\n`;
    expect(eraseRewrappedFrame(frame, 60)).toBe('\r\u001b[6A\u001b[J\u001b[4B');
  });

  it('counts the rows of a last line without a line break (the cursor at its end)', () => {
    expect(eraseRewrappedFrame('x'.repeat(130), 60)).toBe('\r\u001b[2A\u001b[J');
  });
});
