import { describe, expect, it } from 'vitest';
import { afterWrite, CLEAR_TERMINAL, EMPTY_SCREEN, redrawInPlace, type InkScreen } from './ink-writes.js';

/** ansi-escapes' eraseLines(n), as Ink's log-update writes it. */
const eraseLines = (n: number) => `${'\u001b[2K\u001b[1A'.repeat(n - 1)}\u001b[2K\u001b[G`;
const written = (...writes: string[]) => writes.reduce(afterWrite, EMPTY_SCREEN);

describe('afterWrite: what Ink has on the terminal', () => {
  it('a frame is what follows the erase of the one before; an erase alone leaves none', () => {
    expect(written('first\n', `${eraseLines(2)}second\n`).frame).toBe('second\n');
    expect(written('first\n', eraseLines(2)).frame).toBe('');
  });

  it('static output is the write between an erase alone and the frame after it', () => {
    // Ink: log.clear(), the static output, log(frame); then a frame as usual.
    const screen = written('\u001b[?25l', 'frame\n', eraseLines(2), 'static one\n', 'frame\n', `${eraseLines(2)}frame 2\n`, eraseLines(2), 'static two\n', 'frame 3\n');
    expect(screen.frame).toBe('frame 3\n');
    expect(screen.staticLength).toBe('static one\nstatic two\n'.length);
    expect(screen.staticTail).toBe('static one\nstatic two\n');
  });

  it('a frame after an erase alone (a narrowed terminal) is no static output once the next frame erases it', () => {
    const screen = written('frame\n', eraseLines(2), 'frame again\n', `${eraseLines(2)}frame 3\n`);
    expect(screen.staticLength).toBe(0);
  });

  it('writes that draw nothing change nothing', () => {
    const before = written('frame\n');
    for (const control of ['\u001b[?2026h', '\u001b[?2026l', '\u001b[?25l', '\u001b[?2004h', '\u001b]52;c;aGk=\u0007']) {
      expect(afterWrite(before, control)).toEqual(before);
    }
  });
});

describe('redrawInPlace: Ink clearing the terminal becomes a redraw where the frame was', () => {
  const screen: InkScreen = written('', 'line 1\nline 2\n', 'tall\nframe\n');

  it('erases the rows of the last frame and writes the new one with the line break Ink counts', () => {
    const redraw = redrawInPlace(screen, `${CLEAR_TERMINAL}line 1\nline 2\nsmall`, { columns: 60, rows: 10 });
    expect(redraw).toEqual({ write: '\r\u001b[2A\u001b[Jsmall\n', frame: 'small\n' });
  });

  it('writes of a frame taller than the terminal the rows that fit', () => {
    const tall = Array.from({ length: 12 }, (_, i) => `row ${i}`).join('\n');
    const redraw = redrawInPlace(screen, `${CLEAR_TERMINAL}line 1\nline 2\n${tall}`, { columns: 60, rows: 10 });
    expect(redraw?.frame).toBe(tall);
    expect(redraw?.write).toBe(`\r\u001b[2A\u001b[J${tall.split('\n').slice(2).join('\n')}`);
  });

  it('leaves every other write alone, and a clear whose static output is not the one seen', () => {
    expect(redrawInPlace(screen, `${eraseLines(3)}frame\n`, { columns: 60, rows: 10 })).toBeNull();
    expect(redrawInPlace(screen, `${CLEAR_TERMINAL}other 1\nother 2\nsmall`, { columns: 60, rows: 10 })).toBeNull();
  });
});
