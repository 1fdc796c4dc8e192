import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';
import type { Token, Tokens } from 'marked';
import { markdownBlocks, renderMarkdown, withoutFirstMarker } from './markdown.js';
import { cutParagraph } from './paragraph-cut.js';
import { cutInContainer } from './container-cut.js';

/**
 * What part of a streaming answer can move to the scrollback now, so that the live region (the
 * only part Ink redraws) stays small and never grows taller than the terminal: Ink clears the
 * whole screen, scrollback included, when it does. What goes to the scrollback is exactly what
 * one render of the finished answer prints there (renderMarkdown is built for it):
 *
 * - Finished top-level blocks go at once (each rendered alone, one blank line between them).
 * - A list goes item by item: its finished top-level items move out (the rest keeps counting
 *   from where they stopped); a single item taller than the room prints its finished nested
 *   items and stays live.
 * - A code block goes line by line, a table row by row (its columns are fixed by its header and
 *   first row): the block stays whole in the live text, so it keeps its context, and `printed`
 *   says how much of it is in the scrollback already.
 * - A paragraph goes row by row, as one render wraps it (paragraph-cut.ts): only its last rows
 *   stay live, so the live region stays a few rows high however long the paragraph, and a
 *   terminal made shorter has no live rows to push into the scrollback. So does one inside a
 *   list item or a quote, the rest staying live as its continuation (container-cut.ts).
 * - Anything else taller than the room is cut at its last line break, or at a space.
 */
export type CommitPlan =
  /**
   * Move `commit` to the scrollback (minus what `printed` printed of it); `rest` stays live.
   * `continuesItem`: the rest is the rest of a list item, its marker not drawn again.
   */
  | { kind: 'text'; commit: string; rest: string; gap: boolean; continuesItem?: boolean }
  /**
   * Print the finished lines of the open block, `through` being the block up to them. A table
   * then stays live as `live`, its printed rows left out but for the header and first row that
   * fix its columns: `printed` (else `through`) is what of the live text is in the scrollback.
   */
  | { kind: 'keep'; through: string; live?: string; printed?: string };

/** Terminal rows a rendered text takes at `columns`, long lines wrapping as the terminal wraps them. */
export function rowsOf(rendered: string, columns: number): number {
  if (rendered === '') return 0;
  return rendered.split('\n').reduce((rows, line) => rows + Math.max(1, Math.ceil(stringWidth(stripVTControlCharacters(line)) / columns)), 0);
}

/**
 * The rendered lines of `printed` (the start of an open block) that a longer text keeps as they
 * are: all of them, but for a table's bottom rule, which moves down as rows come.
 */
function finalLines(printed: string, width: number): number {
  if (!printed) return 0;
  const lines = renderMarkdown(printed, width).split('\n').length;
  return markdownBlocks(printed).at(-1)?.type === 'table' ? lines - 1 : lines;
}

/**
 * A markdown text rendered at `width`, without what its start `printed` rendered (in the
 * scrollback already). `open`: the text is itself the start of a block still being written, and
 * only its final lines are shown. `continuesItem`: it goes on with a list item printed above, whose
 * marker is not drawn again. Measured at the width drawn now, so a resize keeps it right.
 */
export function renderUnprinted(text: string, printed: string, width: number, { open = false, continuesItem = false } = {}): string {
  const rendered = renderMarkdown(text, width);
  const lines = (continuesItem ? withoutFirstMarker(rendered) : rendered).split('\n');
  const from = finalLines(printed, width);
  if (from === 0 && !open) return lines.join('\n');
  return lines.slice(from, open ? finalLines(text, width) : lines.length).join('\n');
}

/** The start of a quote or a list item that no more text on its line makes anything else. */
const DECIDED_CONTAINER = /^ {0,3}(?:>|[-+*]|\d{1,9}[.)]) +[^\n]*\w/;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const ITEM = /^\s*(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;

/** Where each line of `text` starts, and whether it is inside a code fence (its fence lines included). */
function lineStarts(text: string): { at: number; line: string; fenced: boolean }[] {
  const out: { at: number; line: string; fenced: boolean }[] = [];
  let at = 0;
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const opener = FENCE.exec(line)?.[1] ?? null;
    const fenced = fence !== null || opener !== null;
    if (fence !== null) {
      if (opener?.startsWith(fence)) fence = null;
    } else if (opener) {
      fence = opener.slice(0, 3);
    }
    out.push({ at, line, fenced });
    at += line.length + 1;
  }
  return out;
}

/**
 * A list. Finished top-level items move out (where marked says each item
 * starts), the rest renumbered to go on counting; else, inside one long item, the finished
 * nested items are printed and it stays live.
 */
function splitList(list: Tokens.List, text: string, end: number, printed: string): CommitPlan | null {
  const items = list.items;
  if (items.length > 1) {
    const at = items.slice(0, -1).reduce((sum, item) => sum + item.raw.length, 0);
    const before = text.slice(0, at);
    let rest = text.slice(at);
    if (list.ordered) {
      // An ordered list counts on from its first number, whatever numbers the model wrote after it.
      const number = (list.start === '' ? 1 : list.start) + items.length - 1;
      rest = rest.replace(/^(\s*)\d{1,9}([.)])/, `$1${number}$2`);
    }
    return { kind: 'text', commit: before.replace(/\n+$/, ''), rest, gap: false };
  }
  const nested = lineStarts(text)
    .filter((l) => l.at > 0 && l.at < end && !l.fenced && ITEM.test(l.line))
    .at(-1);
  if (nested && nested.at > printed.length) return { kind: 'keep', through: text.slice(0, nested.at).replace(/\n+$/, '') };
  return null;
}

/** The complete lines of an open code block or table (at least `least` of them), when more than were printed. */
function finishedLines(text: string, end: number, printed: string, least: number): CommitPlan | null {
  const through = text.slice(0, end).split('\n').slice(0, -1);
  if (through.length < least) return null;
  const joined = through.join('\n');
  return joined.length > printed.length ? { kind: 'keep', through: joined } : null;
}

/** The header, delimiter and first row of a table: what fixes its columns (markdown-table.ts). */
const TABLE_CONTEXT_LINES = 3;

/** A table's finished rows go to the scrollback; the live text keeps only what fixes its columns, and the rows to come. */
function printedRows(text: string, end: number, printed: string): CommitPlan | null {
  const plan = finishedLines(text, end, printed, TABLE_CONTEXT_LINES);
  if (plan?.kind !== 'keep') return plan;
  const context = text.split('\n').slice(0, TABLE_CONTEXT_LINES).join('\n');
  return { kind: 'keep', through: plan.through, live: `${context}${text.slice(plan.through.length)}`, printed: context };
}

const tooTall = (text: string, options: { width: number; columns: number; maxRows: number; printed: string }) =>
  rowsOf(renderUnprinted(text, options.printed, options.width), options.columns) > options.maxRows;

/**
 * The last rows of a rendered text that fit in `maxRows`. A safety net for the live region: a
 * block nothing can be cut from yet must not grow it past the terminal (Ink would clear the
 * screen); what it hides is printed whole when the block is done.
 */
export function lastRows(rendered: string, columns: number, maxRows: number): string {
  if (rowsOf(rendered, columns) <= maxRows) return rendered;
  const lines = rendered.split('\n');
  let from = lines.length;
  let rows = 0;
  while (from > 0) {
    const next = rowsOf(lines[from - 1] as string, columns) || 1;
    if (rows + next > maxRows) break;
    rows += next;
    from--;
  }
  return lines.slice(from).join('\n');
}

/** A block with nothing better to go by: its finished lines, or one long line up to a space. */
function cutPlainly(text: string, options: { width: number; maxRows: number }): CommitPlan | null {
  const lines = text.split('\n');
  if (lines.length > 1) return { kind: 'text', commit: lines.slice(0, -1).join('\n'), rest: lines.at(-1) ?? '', gap: false };
  const keep = Math.max(1, options.maxRows - 1) * options.width;
  const space = text.lastIndexOf(' ', Math.max(0, text.length - keep));
  if (space <= 0) return null;
  return { kind: 'text', commit: text.slice(0, space), rest: text.slice(space + 1), gap: false };
}

/** Rows of a paragraph kept live before its finished rows go (the last one is still being written). */
const PARAGRAPH_LIVE_ROWS = 2;
/** Rows of a paragraph no cut reproduces (markdown this does not foresee) before it is cut anyway. */
const UNCUT_ROWS = 24;

/**
 * A paragraph's rows but the last go to the scrollback once it is more than a couple of rows
 * high, at a row boundary no span still open can move (paragraph-cut.ts). Until one is safe, its
 * rows stay live (the live region shows the last that fit).
 */
function splitParagraph(text: string, options: { width: number; columns: number; maxRows: number }): CommitPlan | null {
  const rows = renderMarkdown(text, options.width).split('\n').length;
  if (rows <= PARAGRAPH_LIVE_ROWS) return null;
  const cut = cutParagraph(text, options.width, 1);
  if (cut) return { kind: 'text', commit: cut.commit, rest: cut.rest, gap: false };
  // Rather rows not quite as one render wraps them than a live region that grows without end.
  return rows > UNCUT_ROWS && rowsOf(renderMarkdown(text, options.width), options.columns) > options.maxRows ? cutPlainly(text, options) : null;
}

/**
 * A list item or a quote ending in a paragraph more than a couple of rows high: cut as a
 * paragraph is, the rest staying live as its continuation (undefined: `block` is neither, or has
 * more in it than one paragraph).
 */
function splitInContainer(block: Token, text: string, end: number, options: { width: number; columns: number; maxRows: number }): CommitPlan | null | undefined {
  if (block.type !== 'blockquote' && block.type !== 'list') return undefined;
  const rows = renderMarkdown(text.slice(0, end), options.width).split('\n').length;
  if (rows <= PARAGRAPH_LIVE_ROWS) return undefined;
  const found = cutInContainer(block, text, end, options.width);
  if (!found) return undefined;
  const item = found.item ? { continuesItem: true } : {};
  if (found.cut) return { kind: 'text', commit: found.cut.commit, rest: found.cut.rest, gap: false, ...item };
  // Rather rows not quite as one render wraps them than a live region that grows without end.
  if (rows <= UNCUT_ROWS || rowsOf(renderMarkdown(text, options.width), options.columns) <= options.maxRows) return null;
  const plain = cutPlainly(text, options);
  return plain?.kind === 'text' ? { ...plain, rest: `${found.prefix}${plain.rest.trimStart()}`, ...item } : plain;
}

export function planCommit(text: string, options: { width: number; columns: number; maxRows: number; printed: string }): CommitPlan | null {
  const plan = nextCommit(text, options);
  // A block kept live prints only when that brings lines that are final.
  if (plan?.kind === 'keep' && finalLines(plan.through, options.width) <= finalLines(options.printed, options.width)) return null;
  return plan;
}

function nextCommit(text: string, options: { width: number; columns: number; maxRows: number; printed: string }): CommitPlan | null {
  const blocks = markdownBlocks(text);
  // Where each block ends in the text (blank space between blocks included in the one before).
  const ends: number[] = [];
  let at = 0;
  for (const [i, block] of blocks.entries()) {
    const start = text.indexOf(block.raw, at);
    // The lexer may tidy the end of the text (a trailing space at the end of a list item): the last block ends with it.
    if (start < 0 && i < blocks.length - 1) return tooTall(text, options) && !options.printed ? cutPlainly(text, options) : null;
    at = start < 0 ? text.length : start + block.raw.length;
    ends.push(at);
  }
  // The last block may still be growing; so may the one before, until the last one's first line
  // is written (what it is decides where the one before ends: a list may go on after a blank line).
  const lastStart = ends.length > 1 ? (ends[ends.length - 2] as number) : 0;
  const last = text.slice(lastStart).replace(/^\s*\n/, '');
  // A quote or a list item is decided by its marker and first word (then it is neither a rule
  // nor a table's delimiter row): a long one on one line does not keep the block before it live.
  const open = last.includes('\n') || DECIDED_CONTAINER.test(last) ? 1 : 2;
  const finished = blocks.length - open;
  if (finished > 0) {
    const end = ends[finished - 1] as number;
    return { kind: 'text', commit: text.slice(0, end).replace(/\n+$/, ''), rest: text.slice(end).replace(/^(?:[ \t]*\n)+/, ''), gap: true };
  }
  const block = blocks[0];
  const end = ends[0] ?? text.length;
  // Finished lines of code, rows of a table and items of a list go at once, room or not: every
  // frame redraws the whole live region, and the smaller it is the fewer bytes a frame costs.
  if (block?.type === 'code' && FENCE.test(block.raw)) return finishedLines(text, end, options.printed, 2);
  if (block?.type === 'table') return printedRows(text, end, options.printed);
  if (block?.type === 'list' && (block as Tokens.List).items.length > 1) return splitList(block as Tokens.List, text, end, options.printed);
  if (block?.type === 'paragraph' && !options.printed) return splitParagraph(text, options);
  if (block && !options.printed) {
    const cut = splitInContainer(block, text, end, options);
    if (cut !== undefined) return cut;
  }
  if (!tooTall(text, options)) return null;
  if (block?.type === 'list') return splitList(block as Tokens.List, text, end, options.printed) ?? (options.printed ? null : cutPlainly(text, options));
  return options.printed ? null : cutPlainly(text, options);
}
