import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';

/**
 * Ink erases its last frame by the count of lines it wrote. When the terminal narrows, it
 * rewraps each line wider than the new width into more rows (xterm, tmux, VTE, iTerm2 all do),
 * the frame takes more rows than Ink counts, and Ink's erase leaves the top of the old frame
 * standing: fragments of the live answer, in the scrollback for good.
 *
 * So on a resize, before Ink hears of it, the rows the last frame really takes at the new width
 * are erased here, and the cursor is put back as many rows below the frame's top as Ink counts:
 * Ink's own erase then runs over rows already blank and stops at the top. The screen and the
 * scrollback above the frame are never touched.
 */

const ESC = '\u001b[';
/** ansi-escapes' eraseLines(n), as Ink's log-update writes it before every frame: n × erase line (and up), then column 1. */
const ERASE_LINES = /^(?:\u001b\[2K(?:\u001b\[1A)?)+\u001b\[G/;
const PLAIN = /^[\u0020-\u007e]*$/;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Rows one printed line takes once a terminal of `columns` has (re)wrapped it: a wide character never straddles two rows. */
export function terminalRows(line: string, columns: number): number {
  const visible = stripVTControlCharacters(line);
  if (PLAIN.test(visible)) return Math.max(1, Math.ceil(visible.length / columns));
  let rows = 1;
  let column = 0;
  for (const { segment } of graphemes.segment(visible)) {
    const width = stringWidth(segment);
    if (column + width > columns) {
      rows++;
      column = 0;
    }
    column += width;
  }
  return rows;
}

/**
 * What to write, the terminal being `columns` wide now, so that the last `frame` (the cursor at
 * its end) is erased and the cursor stands where Ink's erase of it expects: '' when the terminal
 * left every row of it where it was.
 */
export function eraseRewrappedFrame(frame: string, columns: number): string {
  const lines = frame.split('\n');
  const inkCounts = lines.length - 1;
  const last = lines.at(-1) ?? '';
  const above = lines.slice(0, -1).reduce((rows, line) => rows + terminalRows(line, columns), terminalRows(last, columns) - 1);
  if (above === inkCounts) return '';
  return `\r${above > 0 ? `${ESC}${above}A` : ''}${ESC}J${inkCounts > 0 ? `${ESC}${inkCounts}B` : ''}`;
}

/**
 * The frame Ink drew last, read from what it writes: a frame is written whole in one write,
 * after the erase of the one before (nothing after an erase alone). Writes of control sequences
 * only (synchronized output, the cursor, bracketed paste, OSC 52) draw nothing.
 */
export function nextFrame(previous: string, written: string): string {
  const erase = ERASE_LINES.exec(written);
  if (erase) return written.slice(erase[0].length);
  return stripVTControlCharacters(written) === '' ? previous : written;
}

/** Watches what is written to `stdout` and erases the rewrapped frame on every resize, ahead of Ink. Returns the undo. */
export function eraseRewrappedFrames(stdout: NodeJS.WriteStream): () => void {
  let frame = '';
  const write = stdout.write;
  const watching = function (this: NodeJS.WriteStream, ...args: unknown[]) {
    const [data] = args;
    if (typeof data === 'string' || data instanceof Uint8Array) frame = nextFrame(frame, typeof data === 'string' ? data : Buffer.from(data).toString('utf8'));
    return Reflect.apply(write, this, args) as boolean;
  } as typeof write;
  stdout.write = watching;
  const onResize = () => {
    const erase = frame && stdout.columns ? eraseRewrappedFrame(frame, stdout.columns) : '';
    if (!erase) return;
    write.call(stdout, erase);
    // What Ink believes is its frame is now that many blank rows.
    frame = '\n'.repeat(frame.split('\n').length - 1);
  };
  // First: Ink redraws from its own 'resize' listener.
  stdout.prependListener('resize', onResize);
  return () => {
    stdout.off('resize', onResize);
    if (stdout.write === watching) stdout.write = write;
  };
}
