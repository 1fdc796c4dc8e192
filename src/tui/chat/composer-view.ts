import type { Editor } from '../shared/editor.js';
import { unitsFitting } from './display-line.js';

/** One row of the draft on screen: a piece of one of its lines, and the cursor when it is there. */
export interface ComposerRow {
  text: string;
  /** Where the cursor is in `text` (it may be `text.length`: just after it), or null. */
  cursor: number | null;
}

export interface ComposerView {
  rows: ComposerRow[];
  /** Rows (or, far from the cursor, lines) of the draft that are not shown. */
  hidden: number;
}

/** Where each line of `text` from `from` to `to` starts and ends (`to` excluded). */
function lineSpans(text: string, from: number, to: number): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  for (let start = from; start <= to; ) {
    const lineBreak = text.indexOf('\n', start);
    const end = lineBreak < 0 || lineBreak > to ? to : lineBreak;
    spans.push({ start, end });
    if (end >= to) break;
    start = end + 1;
  }
  return spans;
}

/** Where the line `count - 1` lines above the cursor's starts (or the text does). */
function startAbove(text: string, cursor: number, count: number): number {
  let start = text.lastIndexOf('\n', cursor - 1) + 1;
  for (let i = 1; i < count && start > 0; i++) start = start >= 2 ? text.lastIndexOf('\n', start - 2) + 1 : 0;
  return start;
}

/** Where the line `count - 1` lines below the cursor's ends (or the text does). */
function endBelow(text: string, cursor: number, count: number): number {
  let end = text.indexOf('\n', cursor);
  for (let i = 1; i < count && end >= 0; i++) end = text.indexOf('\n', end + 1);
  return end < 0 ? text.length : end;
}

/** Line breaks in `from`..`to` (`to` excluded). */
function countBreaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf('\n', from); at >= 0 && at < to; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/**
 * The draft as rows of at most `width - 1` columns (one is kept for the cursor), at most `maxRows`
 * of them around the cursor: the live region must stay shorter than the terminal. Lines are cut
 * here, not by Ink: Ink measures a whole line to wrap it, about 65 µs a character at every key
 * (a 10,000-character line took 670 ms a frame). Only the lines near the cursor are read.
 */
export function composerView(editor: Editor, width: number, maxRows: number): ComposerView {
  const { text, cursor } = editor;
  const columns = Math.max(1, width - 1);
  const rowsWanted = Math.max(1, maxRows);
  // A line gives at least one row: lines farther than that from the cursor cannot be shown.
  const from = startAbove(text, cursor, rowsWanted);
  const to = endBelow(text, cursor, rowsWanted);
  const rows: ComposerRow[] = [];
  let cursorRow = 0;
  let below = 0;
  for (const { start, end } of lineSpans(text, from, to)) {
    let at = start;
    // Rows far below the cursor are counted, not cut: only a window's worth is needed.
    if (rows.length > cursorRow && rows.length - cursorRow >= rowsWanted) {
      below += 1;
      continue;
    }
    do {
      const units = end > at ? unitsFitting(text, at, columns) : 0;
      const rowEnd = Math.min(end, at + units);
      // At a row's end the cursor shows at the start of the next row, unless the line ends there.
      const here = cursor >= at && (cursor < rowEnd || (cursor === rowEnd && rowEnd === end));
      if (here) cursorRow = rows.length;
      rows.push({ text: text.slice(at, rowEnd), cursor: here ? cursor - at : null });
      at = rowEnd;
    } while (at < end);
  }
  const farAway = below + countBreaks(text, 0, from) + countBreaks(text, to, text.length);
  if (rows.length <= rowsWanted && farAway === 0) return { rows, hidden: 0 };
  // One row says how many are hidden; the cursor's row stays in view, as low as it can.
  const room = Math.max(1, rowsWanted - 1);
  const first = Math.min(Math.max(0, cursorRow - room + 1), Math.max(0, rows.length - room));
  const shown = rows.slice(first, first + room);
  return { rows: shown, hidden: rows.length - shown.length + farAway };
}
