import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './markdown.js';

describe('renderMarkdown', () => {
  it('renders markdown as terminal text', () => {
    const out = renderMarkdown('# Title\n\nsome **bold** text', 40);
    expect(out).toContain('Title');
    expect(out).toContain('bold');
    expect(out).not.toContain('**');
  });
});
