import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';

const renderers = new Map<number, Marked>();

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

/**
 * Where a streaming answer can be cut so that the part before it can go to the scrollback while
 * the rest keeps streaming: the last blank line outside a code fence, once the text is longer
 * than `maxLines`. Returns the length of the part that is finished, or 0 to keep it all live.
 */
export function safeSplit(text: string, maxLines: number): number {
  const lines = text.split('\n');
  if (lines.length <= maxLines) return 0;
  let inFence = false;
  let offset = 0;
  let best = 0;
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i] as string;
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    offset += line.length + 1;
    // A blank line outside a fence ends a paragraph: everything before it is finished markdown.
    if (!inFence && line.trim() === '' && i > 0) best = offset;
  }
  return best;
}
