import type { Token, Tokens } from 'marked';
import { renderMarkdown, withoutFirstMarker } from './markdown.js';
import { cutParagraph, shownRows } from './paragraph-cut.js';

/**
 * A long paragraph inside a list item (`2. <600 words>`) or a quote (`> <600 words>`) goes to the
 * scrollback row by row as a paragraph alone does (paragraph-cut.ts): the rows above the cut are
 * the item or quote as written so far, and the rest stays live as its continuation — the quote's
 * `> ` before it, or the item's marker, which is then not drawn again (withoutFirstMarker) so
 * that its rows take the item's indent under the rows printed above.
 */

/** Where a paragraph inside a container can be cut: what prints now, what stays live. */
export interface ContainerCut {
  commit: string;
  rest: string;
  /** The rest is a list item going on from the commit: its marker is not drawn again. */
  continuesItem: boolean;
}

interface Container {
  /** What the rest is written after: `> `, or the item's marker (`2. `). */
  prefix: string;
  /** Where the text inside begins on the first line, and on each line after it. */
  first: RegExp;
  next: RegExp;
  item: boolean;
}

const QUOTE_LINE = /^(?: {0,3}> ?)?/;
const ITEM_START = /^ {0,3}((?:[-+*]|\d{1,9}[.)]) {1,4})(?=\S)/;

/** The container a block is, when it ends in one paragraph a cut can go through; else null. */
function containerOf(block: Token, text: string): Container | null {
  if (block.type === 'blockquote') {
    const parts = (block as Tokens.Blockquote).tokens.filter((part) => part.type !== 'space');
    if (parts.at(-1)?.type !== 'paragraph') return null;
    return { prefix: '> ', first: QUOTE_LINE, next: QUOTE_LINE, item: false };
  }
  if (block.type !== 'list') return null;
  const items = (block as Tokens.List).items;
  const parts = items[0]?.tokens.filter((part) => part.type !== 'space') ?? [];
  if (items.length !== 1 || items[0]?.task || parts.length !== 1 || !['text', 'paragraph'].includes(parts[0]?.type ?? '')) return null;
  const marker = ITEM_START.exec(text)?.[1];
  if (!marker) return null;
  return { prefix: marker, first: ITEM_START, next: /^ */, item: true };
}

/** The text inside a container's lines, and where each of its characters is in the source (one more for its end). */
function inside(source: string, container: Container): { text: string; at: number[] } {
  let text = '';
  const at: number[] = [];
  let offset = 0;
  for (const [i, line] of source.split('\n').entries()) {
    if (i > 0) {
      at.push(offset - 1);
      text += '\n';
    }
    const skip = (i === 0 ? container.first : container.next).exec(line)?.[0].length ?? 0;
    for (let c = skip; c < line.length; c++) at.push(offset + c);
    text += line.slice(skip);
    offset += line.length + 1;
  }
  at.push(source.length);
  return { text, at };
}

/**
 * When `block` (the text's first block, ending at `end`) is a list item or a quote ending in a
 * paragraph: the cut through that paragraph that leaves its last row live, if a row boundary is
 * safe (else `cut` is null), and what the rest of it is written after.
 */
export function cutInContainer(block: Token, text: string, end: number, width: number): { cut: ContainerCut | null; prefix: string; item: boolean } | null {
  const container = containerOf(block, text);
  if (!container) return null;
  return { cut: cutInside(container, text, end, width), prefix: container.prefix, item: container.item };
}

function cutInside(container: Container, text: string, end: number, width: number): ContainerCut | null {
  const source = text.slice(0, end).replace(/\n+$/, '');
  const { text: within, at } = inside(source, container);
  // The paragraph shown inside its container, every line of it (the item's marker blank: the
  // commit's rows and the rest's compare alike).
  const lineStart = container.item ? ' '.repeat(container.prefix.length) : container.prefix;
  const wrap = (part: string) => `${container.prefix}${part.replace(/\n/g, `\n${lineStart}`)}`;
  const show = (part: string) => shownRows(container.item ? withoutFirstMarker(renderMarkdown(wrap(part), width)) : renderMarkdown(wrap(part), width));
  const cut = cutParagraph(within, width, 1, show);
  if (!cut) return null;
  const commitEnd = at[cut.commit.length] as number;
  const restStart = at[within.length - cut.rest.length] as number;
  return { commit: source.slice(0, commitEnd), rest: `${container.prefix}${text.slice(restStart)}`, continuesItem: container.item };
}
