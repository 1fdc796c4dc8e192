import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { eraseRewrappedFrame, eraseRewrappedFrames, nextFrame, terminalRows } from './rewrap-erase.js';

/** ansi-escapes' eraseLines(n), as Ink writes it. */
const eraseLines = (n: number) => `${'\u001b[2K\u001b[1A'.repeat(n - 1)}\u001b[2K\u001b[G`;

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

describe('nextFrame', () => {
  it('is what follows the erase of the frame before', () => {
    expect(nextFrame('old\n', `${eraseLines(2)}new\n`)).toBe('new\n');
    expect(nextFrame('old\n', eraseLines(2))).toBe('');
  });

  it('is a whole write without an erase (the first frame, or static output followed by its frame)', () => {
    expect(nextFrame('', 'first\n')).toBe('first\n');
  });

  it('is unchanged by writes that draw nothing', () => {
    for (const control of ['\u001b[?2026h', '\u001b[?2026l', '\u001b[?25l', '\u001b[?2004h', '\u001b]52;c;aGk=\u0007']) {
      expect(nextFrame('frame\n', control)).toBe('frame\n');
    }
  });
});

describe('eraseRewrappedFrames', () => {
  function fakeStdout(columns: number) {
    const written: string[] = [];
    const stdout = Object.assign(new EventEmitter(), {
      columns,
      write(data: string) {
        written.push(data);
        return true;
      },
    });
    return { stdout, written };
  }

  it('erases the rewrapped frame on a resize, before the listeners there already (Ink redraws from one)', () => {
    const { stdout, written } = fakeStdout(100);
    const heard: string[] = [];
    stdout.on('resize', () => heard.push(written.at(-1) ?? ''));
    const undo = eraseRewrappedFrames(stdout as unknown as NodeJS.WriteStream);
    stdout.write(`${'a'.repeat(98)}\nstatus\n`);
    stdout.columns = 60;
    stdout.emit('resize');
    expect(heard).toEqual(['\r\u001b[3A\u001b[J\u001b[2B']);
    // Ink's frame is now blank rows: a second resize before it redraws erases nothing more.
    written.length = 0;
    stdout.columns = 40;
    stdout.emit('resize');
    expect(written).toEqual([]);
    undo();
    stdout.write(`${'b'.repeat(98)}\n`);
    stdout.emit('resize');
    expect(written).toEqual([`${'b'.repeat(98)}\n`]);
  });
});
