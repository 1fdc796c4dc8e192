import { Marked, type Token, type Tokens } from 'marked';
import { markedTerminal } from 'marked-terminal';
import { renderTable } from './markdown-table.js';
import { wrapToWidth } from './text-width.js';

/**
 * Markdown as the chat prints it. Built so that a streaming answer can go to the scrollback in
 * pieces and still print exactly what one render of the whole answer prints (live-split.ts):
 * - top-level blocks are rendered each on its own and joined by one blank line;
 * - a list is its items one after the other, each item drawn from its own number, depth and
 *   text alone (never from the items after it: no spacing that a later blank line would change);
 * - a table's columns come from its header and first row (markdown-table.ts).
 */

const renderers = new Map<number, { marked: Marked; indent: { columns: number } }>();

/** The width markdown is wrapped to in a terminal of `columns`: a column spare on each side. */
export const markdownWidth = (columns: number) => Math.max(20, columns - 2);

/** How far a top-level list is indented. */
const LIST_INDENT = 2;
const BULLET = '*';

/** Code lines wider than the room wrap with their indent (plus two), not at the terminal's edge. */
function wrapCode(rendered: string, width: number): string {
  return rendered
    .split('\n')
    .map((line) => {
      const indent = /^\s*/.exec(line)?.[0] ?? '';
      const room = Math.max(10, width - indent.length - 2);
      const wrapped = wrapToWidth(line.slice(indent.length), room, { hard: true, trim: false }).split('\n');
      return wrapped.map((part, i) => `${indent}${i > 0 ? '  ' : ''}${part}`).join('\n');
    })
    .join('\n');
}

const trimEnd = (text: string) => text.replace(/\n+$/, '');

function rendererFor(width: number): { marked: Marked; indent: { columns: number } } {
  const terminal = markedTerminal({ width, reflowText: true, tab: 2 }) as { renderer: Record<string, (...args: unknown[]) => string> };
  const code = terminal.renderer.code as (...args: unknown[]) => string;
  terminal.renderer.code = function (this: unknown, ...args: unknown[]) {
    return wrapCode(code.apply(this, args), width);
  };
  /** Columns the list being drawn is indented by (its parents' markers): its text wraps in what is left. */
  const indent = { columns: 0 };
  const marked = new Marked(terminal, {
    tokenizer: {
      // No setext headings (a line under a paragraph made of `===` or `---`): the paragraph's rows
      // go to the scrollback while it streams, before the line that would make all of them a
      // heading is written. `---` under text is a rule, `===` is text (models write `#` headings).
      lheading: () => undefined,
    },
    renderer: {
      // The text of a tight list item holds inline markdown (code, links, emphasis): render it.
      text(token: Tokens.Text | Tokens.Escape) {
        return 'tokens' in token && token.tokens ? this.parser.parseInline(token.tokens) : false;
      },
      list(token: Tokens.List) {
        const outer = indent.columns;
        const lead = outer === 0 ? LIST_INDENT : 0;
        const start = token.ordered && token.start !== '' ? token.start : 1;
        const items = token.items.map((item, i) => {
          const marker = `${token.ordered ? `${start + i}.` : BULLET}${item.task ? (item.checked ? ' [x]' : ' [ ]') : ''} `;
          indent.columns = outer + lead + marker.length;
          const room = Math.max(10, width - indent.columns);
          // Each part of the item on its own line: no blank lines that depend on the list being loose.
          const body = item.tokens
            .filter((part) => part.type !== 'space' && part.type !== 'checkbox')
            .map((part) => {
              const rendered = trimEnd(this.parser.parse([part]));
              return part.type === 'list' ? rendered : wrapToWidth(rendered.replace(/\n/g, ' '), room, { hard: true, trim: true });
            })
            .filter((part) => part !== '')
            .join('\n')
            .split('\n');
          const pad = ' '.repeat(lead);
          return body.map((line, j) => `${pad}${j === 0 ? marker : ' '.repeat(marker.length)}${line}`.trimEnd()).join('\n');
        });
        indent.columns = outer;
        return `${items.join('\n')}\n\n`;
      },
      table(token: Tokens.Table) {
        const inline = (cell: Tokens.TableCell) => this.parser.parseInline(cell.tokens);
        return `${renderTable(token.header.map(inline), token.rows.map((row) => row.map(inline)), token.align, width - indent.columns)}\n\n`;
      },
    },
  });
  return { marked, indent };
}

/**
 * A rendered list whose first item goes on from a piece of it printed above (the rest of a long
 * item, live-split.ts): that item's marker is not drawn again, its place left blank.
 */
export function withoutFirstMarker(rendered: string): string {
  return rendered.replace(/^( *)(\d{1,9}\.|\*)( \[[ x]\])? /, (marker) => ' '.repeat(marker.length));
}

/** The top-level blocks of a markdown text, as marked reads them (blank space left out). */
export function markdownBlocks(text: string): Token[] {
  return markdownRenderer(80).marked.lexer(text).filter((token) => token.type !== 'space');
}

function markdownRenderer(width: number) {
  let renderer = renderers.get(width);
  if (!renderer) {
    renderer = rendererFor(width);
    renderers.set(width, renderer);
  }
  return renderer;
}

/**
 * The last texts rendered: while an answer streams, the same start of a block (what is printed
 * of it) is measured at every redraw.
 */
const recent = new Map<string, string>();
const RECENT = 32;

/** Markdown as terminal text (colours, code blocks, lists, tables), wrapped to `width`. */
export function renderMarkdown(text: string, width: number): string {
  const key = `${width}\u0000${text}`;
  const known = recent.get(key);
  if (known !== undefined) return known;
  const rendered = renderOnce(text, width);
  if (recent.size >= RECENT) recent.delete(recent.keys().next().value as string);
  recent.set(key, rendered);
  return rendered;
}

function renderOnce(text: string, width: number): string {
  const { marked, indent } = markdownRenderer(width);
  try {
    const tokens = marked.lexer(text);
    return tokens
      .filter((token) => token.type !== 'space')
      .map((token) => {
        indent.columns = 0;
        return trimEnd(marked.parser(Object.assign([token], { links: tokens.links })));
      })
      .filter((block) => block !== '')
      .join('\n\n');
  } catch {
    indent.columns = 0;
    return text;
  }
}
