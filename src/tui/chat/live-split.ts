import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';
import { renderMarkdown } from './markdown.js';

/**
 * What part of a streaming answer can move to the scrollback now, so that the live region (the
 * only part Ink redraws) stays small and never grows taller than the terminal: Ink clears the
 * whole screen, scrollback included, when it does.
 *
 * - Finished blocks go at once: everything before the last blank line outside a code fence is
 *   markdown that later text cannot change.
 * - A code block goes line by line as its lines finish. It stays whole in the live text, so it is
 *   highlighted with all its context; `skip` says how many of its rendered lines (one a code line)
 *   are in the scrollback already.
 * - Any other block taller than the room is cut at its last line break, or at a space when it is
 *   one long line.
 */
export type CommitPlan =
  /** Move `commit` to the scrollback (minus the `skip` lines printed before); `rest` stays live. */
  | { kind: 'text'; commit: string; rest: string; gap: boolean }
  /** Print the finished lines of the open code block, `through` being the block up to them. */
  | { kind: 'code'; through: string };

/** Terminal rows a rendered text takes at `columns`, long lines wrapping as the terminal wraps them. */
export function rowsOf(rendered: string, columns: number): number {
  if (rendered === '') return 0;
  return rendered.split('\n').reduce((rows, line) => rows + Math.max(1, Math.ceil(stringWidth(stripVTControlCharacters(line)) / columns)), 0);
}

/**
 * A markdown text rendered at `width`, without what its start `printed` renders to (a code
 * block's lines already in the scrollback). Measured at the width drawn now, so a resize keeps it right.
 */
export function renderUnprinted(text: string, printed: string, width: number): string {
  const rendered = renderMarkdown(text, width);
  if (!printed) return rendered;
  return rendered.split('\n').slice(renderMarkdown(printed, width).split('\n').length).join('\n');
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})(.*)$/;

/** Line by line: whether each line is inside a fence (its opener and closer included), and the fence open at the end. */
function fences(lines: string[]): { inside: boolean[]; openAt: number | null } {
  const inside: boolean[] = [];
  let open: { marker: string; at: number } | null = null;
  lines.forEach((line, i) => {
    const match = FENCE.exec(line);
    if (open) {
      inside.push(true);
      if (match && (match[1] as string).startsWith(open.marker) && (match[2] as string).trim() === '') open = null;
    } else {
      inside.push(match !== null);
      if (match) open = { marker: (match[1] as string)[0]!.repeat(3), at: i };
    }
  });
  return { inside, openAt: open ? (open as { at: number }).at : null };
}

const nonBlank = (lines: string[]) => lines.some((line) => line.trim() !== '');

export function planCommit(text: string, options: { width: number; columns: number; maxRows: number; printed: string }): CommitPlan | null {
  const lines = text.split('\n');
  const { inside, openAt } = fences(lines);
  // The last line may still be growing; a blank line before it ends a finished block.
  for (let i = lines.length - 2; i > 0; i--) {
    if (!inside[i] && (lines[i] as string).trim() === '' && nonBlank(lines.slice(0, i))) {
      return { kind: 'text', commit: lines.slice(0, i).join('\n').replace(/\n+$/, ''), rest: lines.slice(i + 1).join('\n').replace(/^\n+/, ''), gap: true };
    }
  }
  if (openAt !== null) {
    // Text before a code block that has begun is finished: it goes first, so the block starts the live text.
    if (openAt > 0 && nonBlank(lines.slice(0, openAt))) {
      return { kind: 'text', commit: lines.slice(0, openAt).join('\n').replace(/\n+$/, ''), rest: lines.slice(openAt).join('\n'), gap: true };
    }
    // The code lines before the one still being written, when there are more than were printed.
    const through = lines.slice(0, lines.length - 1).join('\n');
    if (openAt === 0 && lines.length - 2 > 0 && through.length > options.printed.length) return { kind: 'code', through };
    return null;
  }
  if (rowsOf(renderUnprinted(text, options.printed, options.width), options.columns) <= options.maxRows) return null;
  // One block taller than the room: its finished lines go now.
  if (lines.length > 1) return { kind: 'text', commit: lines.slice(0, -1).join('\n'), rest: lines.at(-1) ?? '', gap: false };
  // One long line: cut at the last space that leaves the rest a few rows.
  const keep = Math.max(1, options.maxRows - 1) * options.width;
  const space = text.lastIndexOf(' ', Math.max(0, text.length - keep));
  if (space <= 0) return null;
  return { kind: 'text', commit: text.slice(0, space), rest: text.slice(space + 1), gap: false };
}
