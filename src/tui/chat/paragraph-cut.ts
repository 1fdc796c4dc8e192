import { stripVTControlCharacters } from 'node:util';
import { renderMarkdown } from './markdown.js';

/**
 * Where a streaming paragraph can be cut so that its start goes to the scrollback and the rest
 * stays live, with the two printed one under the other being exactly the one render of the whole:
 * only at a boundary of the rows that render wraps it into. A row wraps from its first word on
 * as if nothing came before it, so the rows above the cut print alone as they print in the whole,
 * and the rest wraps alone as it does there.
 *
 * Rows that more text can still change are never cut off: the last one (words are added to it),
 * and any that an inline span still open would change once it closes (`**`, `*`, `` ` ``, a link
 * `[..](..)`: its markers vanish, its text takes another style, a word narrows and moves up a row).
 * Each kind of closing is tried on the text as it stands, and a cut is taken only if none of them
 * changes the rows above it — but for a span open for more rows than a span takes (2*3, a lone
 * backtick: a marker that will never close), which would otherwise keep the paragraph live for good.
 */

/** What may come next and close a span that is open at the end of the text. */
const CLOSERS = ['`', '``', '*', '**', '_', '__', '~~', '](x)', '(x)', ')', '>', ';'];

/** Rows a span may stay open before its marker is taken for one that never closes. */
const STRAY_MARKER_ROWS = 8;

/** Row boundaries tried at most, from the last row up (each costs a few renders). */
const TRIED_ROWS = 24;

/** How far from the estimated word a row boundary is looked for (a link prints a word more than its source: its address). */
const SEARCH = [0, -1, -2, -3, 1, -4, -5, -6, 2, -7, -8];

export interface ParagraphCut {
  /** The rows above the cut, as source text: printed now. */
  commit: string;
  /** The rest, from the first word of the row below the cut: stays live. */
  rest: string;
}

/** The source words' gaps: where a cut can fall (the whitespace between two words). */
function gaps(text: string): { start: number; end: number }[] {
  return [...text.matchAll(/\s+/g)].filter((m) => m.index > 0 && m.index + m[0].length < text.length).map((m) => ({ start: m.index, end: m.index + m[0].length }));
}

/**
 * A render as the terminal shows it: its rows' text. Colour codes are left out because they may
 * sit elsewhere in the pieces and show alike: each piece carries the paragraph's reset, and the
 * whole opens a style that starts a row at the end of the row before. Where a span crosses the
 * cut, its markers show in the piece (`**`, a backtick…), so the text tells that apart.
 */
export const shownRows = (rendered: string) =>
  stripVTControlCharacters(rendered)
    .split('\n')
    .map((row) => row.trimEnd());

/** How a text is shown: its rows as the terminal shows them (a paragraph inside a list item or a quote is shown inside it). */
export type Show = (text: string) => string[];

const wordsIn = (row: string) => row.trim().split(/\s+/).filter(Boolean).length;

/** The first row two renders differ in. */
function firstDifference(a: string[], b: string[]): number {
  let row = 0;
  while (row < a.length && row < b.length && a[row] === b[row]) row++;
  return row;
}

/**
 * Where a line starts that may be the header of a table whose delimiter row is still to come (a
 * line starting with a pipe, last or before the last): the table would end the paragraph above
 * it, so nothing from there is cut off until the next line says. The text's length if none.
 */
function possibleTableHeader(text: string): number {
  const last = text.lastIndexOf('\n');
  const previous = last > 0 ? text.lastIndexOf('\n', last - 1) : -1;
  if (last >= 0 && /^\s*\|/.test(text.slice(previous + 1, last))) return previous;
  return /^\s*\|/.test(text.slice(last + 1)) ? last : text.length;
}

/** The gap between source words where the rows of `text` above `cutRow` end, if one prints them alone exactly. */
function cutAt(text: string, rows: string[], cutRow: number, show: Show, between: { start: number; end: number }[]): ParagraphCut | null {
  const before = possibleTableHeader(text);
  const head = rows.slice(0, cutRow).join('\n');
  const tail = rows.slice(cutRow).join('\n');
  const estimate = rows.slice(0, cutRow).reduce((sum, row) => sum + wordsIn(row), 0) - 1;
  for (const offset of SEARCH) {
    const gap = between[estimate + offset];
    if (!gap || gap.start > before) continue;
    const commit = text.slice(0, gap.start);
    const rest = text.slice(gap.end);
    if (show(commit).join('\n') === head && show(rest).join('\n') === tail) return { commit, rest };
  }
  return null;
}

/**
 * The cut that leaves the fewest rows of `text` (one paragraph, rendered at `width`) live, and
 * at least `keepRows` of them: null when no row boundary is safe. `show`: how the paragraph is
 * shown, by default alone; inside a list item or a quote, inside it (container-cut.ts).
 */
export function cutParagraph(text: string, width: number, keepRows: number, show: Show = (t) => shownRows(renderMarkdown(t, width))): ParagraphCut | null {
  const rows = show(text);
  const between = gaps(text);
  // The rows each kind of closing would change are not final (a span open for long aside).
  const stable = CLOSERS.map((closer) => firstDifference(show(text.trimEnd() + closer), rows))
    .filter((row) => row >= rows.length - STRAY_MARKER_ROWS)
    .reduce((least, row) => Math.min(least, row), rows.length);
  const lowest = Math.max(1, rows.length - keepRows - TRIED_ROWS + 1);
  for (let cutRow = Math.min(rows.length - keepRows, stable); cutRow >= lowest; cutRow--) {
    const cut = cutAt(text, rows, cutRow, show, between);
    if (cut) return cut;
  }
  return null;
}
