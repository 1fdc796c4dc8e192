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

describe('renderMarkdown in list items and code', () => {
  it('renders inline code and links inside list items', () => {
    const out = renderMarkdown('- run `npm test` now\n- see [the docs](https://example.com/docs)', 60);
    expect(out).not.toContain('`npm test`');
    expect(out).toContain('npm test');
    expect(out).not.toContain('[the docs]');
    expect(out).toContain('the docs');
  });

  it('wraps a long code line under its own indent, not at the terminal edge', () => {
    const long = `const value = ${'x'.repeat(60)};`;
    const lines = renderMarkdown(`\`\`\`js\n${long}\n\`\`\``, 40).split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
    for (const line of lines.slice(1)) expect(line).toMatch(/^ {4}\S/);
  });
});
