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

/** Rows a frame takes above the cursor (which stands at its end) in a terminal of `columns`. */
export function rowsAbove(frame: string, columns: number): number {
  const lines = frame.split('\n');
  const last = lines.at(-1) ?? '';
  return lines.slice(0, -1).reduce((rows, line) => rows + terminalRows(line, columns), terminalRows(last, columns) - 1);
}

/**
 * What to write, the terminal being `columns` wide now, so that the last `frame` (the cursor at
 * its end) is erased and the cursor stands where Ink's erase of it expects: '' when the terminal
 * left every row of it where it was.
 */
export function eraseRewrappedFrame(frame: string, columns: number): string {
  const inkCounts = frame.split('\n').length - 1;
  const above = rowsAbove(frame, columns);
  if (above === inkCounts) return '';
  return `\r${above > 0 ? `${ESC}${above}A` : ''}${ESC}J${inkCounts > 0 ? `${ESC}${inkCounts}B` : ''}`;
}
