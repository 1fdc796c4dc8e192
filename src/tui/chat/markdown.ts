import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';

const renderers = new Map<number, Marked>();

/** The width markdown is wrapped to in a terminal of `columns`: a column spare on each side. */
export const markdownWidth = (columns: number) => Math.max(20, columns - 2);

/** Markdown as terminal text (colours, code blocks), wrapped to `width`. */
export function renderMarkdown(text: string, width: number): string {
  let marked = renderers.get(width);
  if (!marked) {
    marked = new Marked(markedTerminal({ width, reflowText: true, tab: 2 }));
    renderers.set(width, marked);
  }
  try {
    return (marked.parse(text, { async: false }) as string).replace(/\n+$/, '');
  } catch {
    return text;
  }
}
