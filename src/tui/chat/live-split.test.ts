import { describe, expect, it } from 'vitest';
import { planCommit, renderUnprinted, rowsOf } from './live-split.js';
import { renderMarkdown } from './markdown.js';

const room = { width: 40, columns: 42, maxRows: 6, printed: '' };

describe('planCommit: what of a streaming answer goes to the scrollback now', () => {
  it('keeps a short block live', () => {
    expect(planCommit('just one paragraph', room)).toBeNull();
  });

  it('moves every finished block at once, keeping the one still being written', () => {
    expect(planCommit('first para\n\nsecond para\n\nthird, still go', room)).toEqual({
      kind: 'text',
      commit: 'first para\n\nsecond para',
      rest: 'third, still go',
      gap: true,
    });
  });

  it('does not treat a blank line as finished while it may still be the last line', () => {
    expect(planCommit('para\n', room)).toBeNull();
  });

  it('never cuts at a blank line inside a code fence; text before a fence that has begun goes first', () => {
    expect(planCommit(['intro', '', '```js', 'a()', '', 'b()'].join('\n'), room)).toMatchObject({ kind: 'text', commit: 'intro', gap: true });
    expect(planCommit(['Here:', '```js', 'a()'].join('\n'), room)).toMatchObject({ kind: 'text', commit: 'Here:', rest: '```js\na()' });
  });

  it('prints the finished lines of a code block as they finish, the block staying live for its context', () => {
    const code = ['```ts', 'one()', 'two()', 'thr'].join('\n');
    expect(planCommit(code, room)).toEqual({ kind: 'code', through: '```ts\none()\ntwo()' });
    expect(planCommit(code, { ...room, printed: '```ts\none()\ntwo()' })).toBeNull();
    // What is printed is what is left out of the live rendering after.
    expect(renderUnprinted(`${code}ee()`, '```ts\none()\ntwo()', 40).trim()).toBe('three()');
  });

  it('cuts another block taller than the room at its last line break, or one long line at a space', () => {
    const list = Array.from({ length: 10 }, (_, i) => `- item ${i}`).join('\n');
    expect(planCommit(list, room)).toMatchObject({ kind: 'text', rest: '- item 9', gap: false });
    const long = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
    const plan = planCommit(long, room);
    expect(plan?.kind).toBe('text');
    if (plan?.kind !== 'text') return;
    expect(`${plan.commit} ${plan.rest}`).toBe(long);
    expect(rowsOf(renderMarkdown(plan.rest, room.width), room.columns)).toBeLessThanOrEqual(room.maxRows);
  });

  it('counts rows as the terminal wraps them, colours aside', () => {
    expect(rowsOf('', 10)).toBe(0);
    expect(rowsOf('abc\n\u001b[31m0123456789ab\u001b[0m', 10)).toBe(3);
  });
});
