import { Marked, type Tokens } from 'marked';
import { markedTerminal } from 'marked-terminal';
import wrapAnsi from 'wrap-ansi';

const renderers = new Map<number, Marked>();

/** The width markdown is wrapped to in a terminal of `columns`: a column spare on each side. */
export const markdownWidth = (columns: number) => Math.max(20, columns - 2);

/** Code lines wider than the room wrap with their indent (plus two), not at the terminal's edge. */
function wrapCode(rendered: string, width: number): string {
  return rendered
    .split('\n')
    .map((line) => {
      const indent = /^\s*/.exec(line)?.[0] ?? '';
      const room = Math.max(10, width - indent.length - 2);
      const wrapped = wrapAnsi(line.slice(indent.length), room, { hard: true, trim: false }).split('\n');
      return wrapped.map((part, i) => `${indent}${i > 0 ? '  ' : ''}${part}`).join('\n');
    })
    .join('\n');
}

function rendererFor(width: number): Marked {
  const terminal = markedTerminal({ width, reflowText: true, tab: 2 }) as { renderer: Record<string, (...args: unknown[]) => string> };
  const code = terminal.renderer.code as (...args: unknown[]) => string;
  terminal.renderer.code = function (this: unknown, ...args: unknown[]) {
    return wrapCode(code.apply(this, args), width);
  };
  return new Marked(terminal, {
    renderer: {
      // The text of a tight list item holds inline markdown (code, links, emphasis): render it.
      text(token: Tokens.Text | Tokens.Escape) {
        return 'tokens' in token && token.tokens ? this.parser.parseInline(token.tokens) : false;
      },
    },
  });
}

/** Markdown as terminal text (colours, code blocks), wrapped to `width`. */
export function renderMarkdown(text: string, width: number): string {
  let marked = renderers.get(width);
  if (!marked) {
    marked = rendererFor(width);
    renderers.set(width, marked);
  }
  try {
    return (marked.parse(text, { async: false }) as string).replace(/\n+$/, '');
  } catch {
    return text;
  }
}
