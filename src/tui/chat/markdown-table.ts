import { textWidth, wrapToWidth } from './text-width.js';

/**
 * A markdown table as a box that fits the width, its cells wrapped inside their columns. Column
 * widths come from the header and the first row only: rows that arrive later never change them,
 * so a table that streams can go to the scrollback row by row and still be the table a single
 * render of the whole answer prints (see live-split.ts). Longer cells further down wrap.
 */

type Align = 'center' | 'left' | 'right' | null;

const GREY = (text: string) => `\u001b[90m${text}\u001b[39m`;
const BOLD = (text: string) => `\u001b[1m${text}\u001b[22m`;

/** The narrowest a column gets, so that a table of many columns stays a table. */
const MIN_COLUMN = 3;

/**
 * Natural widths (header, first row), shrunk from the widest down until the box fits `width`; a
 * narrower box takes the whole width, the room shared by its columns wider than the minimum
 * (cells further down, unseen when the widths are chosen, are often longer than the first).
 */
export function columnWidths(header: string[], firstRow: string[] | undefined, width: number): number[] {
  const natural = header.map((cell, i) => Math.max(MIN_COLUMN, textWidth(cell), ...cellLines(firstRow?.[i] ?? '').map((line) => textWidth(line))));
  // Each column takes its width, a space either side and one border; the box one more border.
  const room = Math.max(natural.length * MIN_COLUMN, width - 3 * natural.length - 1);
  const widths = [...natural];
  let excess = widths.reduce((sum, w) => sum + w, 0) - room;
  while (excess > 0) {
    const widest = Math.max(...widths);
    if (widest <= MIN_COLUMN) break;
    const next = Math.max(MIN_COLUMN, ...widths.filter((w) => w < widest));
    const columns = widths.filter((w) => w === widest).length;
    // Bring every widest column down together, at most to the next width.
    const cut = Math.min(widest - next, Math.ceil(excess / columns));
    for (let i = 0; i < widths.length; i++) if (widths[i] === widest) widths[i] = widest - cut;
    excess -= cut * columns;
  }
  const growing = widths.map((w, i) => (w > MIN_COLUMN ? i : -1)).filter((i) => i >= 0);
  const spare = -excess;
  if (spare > 0 && growing.length > 0) {
    growing.forEach((column, n) => {
      widths[column] = (widths[column] ?? 0) + Math.floor(spare / growing.length) + (n < spare % growing.length ? 1 : 0);
    });
  }
  return widths;
}

const cellLines = (text: string) => text.split('\n');

function pad(text: string, width: number, align: Align): string {
  const space = Math.max(0, width - textWidth(text));
  if (align === 'right') return `${' '.repeat(space)}${text}`;
  if (align === 'center') return `${' '.repeat(Math.floor(space / 2))}${text}${' '.repeat(Math.ceil(space / 2))}`;
  return `${text}${' '.repeat(space)}`;
}

/** One row, each cell wrapped to its column: as many lines as its tallest cell. */
function rowLines(cells: string[], widths: number[], align: Align[], style: (text: string) => string = (t) => t): string[] {
  const wrapped = widths.map((w, i) => cellLines(cells[i] ?? '').flatMap((line) => wrapToWidth(line, w, { hard: true, trim: true }).split('\n')));
  const height = Math.max(1, ...wrapped.map((lines) => lines.length));
  const bar = GREY('│');
  return Array.from({ length: height }, (_, row) => {
    const parts = widths.map((w, i) => ` ${pad(style(wrapped[i]?.[row] ?? ''), w, align[i] ?? null)} `);
    return `${bar}${parts.join(bar)}${bar}`;
  });
}

const rule = (widths: number[], [left, middle, right]: [string, string, string]) =>
  GREY(`${left}${widths.map((w) => '─'.repeat(w + 2)).join(middle)}${right}`);

/** The box: a top rule, the header, a rule, the rows, a bottom rule. Cells are rendered inline markdown. */
export function renderTable(header: string[], rows: string[][], align: Align[], width: number): string {
  const widths = columnWidths(header, rows[0], width);
  return [
    rule(widths, ['┌', '┬', '┐']),
    ...rowLines(header, widths, align, BOLD),
    rule(widths, ['├', '┼', '┤']),
    ...rows.flatMap((row) => rowLines(row, widths, align)),
    rule(widths, ['└', '┴', '┘']),
  ].join('\n');
}
