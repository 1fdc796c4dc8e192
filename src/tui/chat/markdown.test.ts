import { describe, expect, it } from 'vitest';
import { renderMarkdown, safeSplit } from './markdown.js';

describe('safeSplit: moving the finished part of a long answer to the scrollback', () => {
  const paragraphs = (n: number) => Array.from({ length: n }, (_, i) => `paragraph ${i}`).join('\n\n');

  it('keeps a short answer live', () => {
    expect(safeSplit(paragraphs(2), 10)).toBe(0);
  });

  it('cuts a long answer after its last finished paragraph', () => {
    const text = paragraphs(10);
    const cut = safeSplit(text, 5);
    expect(cut).toBeGreaterThan(0);
    expect(text.slice(0, cut).endsWith('\n\n')).toBe(true);
    expect(text.slice(cut)).toBe('paragraph 9');
  });

  it('never cuts inside a code fence', () => {
    const text = ['intro', '', '```js', 'a()', '', 'b()', '', 'c()', '```', 'tail'].join('\n');
    const cut = safeSplit(text, 3);
    expect(text.slice(0, cut)).toBe('intro\n\n');
  });
});

describe('renderMarkdown', () => {
  it('renders markdown as terminal text', () => {
    const out = renderMarkdown('# Title\n\nsome **bold** text', 40);
    expect(out).toContain('Title');
    expect(out).toContain('bold');
    expect(out).not.toContain('**');
  });
});
