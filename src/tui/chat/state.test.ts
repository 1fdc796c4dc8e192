import { describe, expect, it } from 'vitest';
import { withText } from '../shared/editor.js';
import { chatReducer, initialState } from './state.js';

describe('input history', () => {
  const state = () => chatReducer(chatReducer(initialState({ model: 'm', toolsEnabled: true }), { type: 'submitted', text: 'first' }), { type: 'submitted', text: 'second' });

  it('walks back and forth, and returns to what was being typed', () => {
    let s = chatReducer(state(), { type: 'edit', editor: withText('draft') });
    s = chatReducer(s, { type: 'history', direction: 'prev' });
    expect(s.editor.text).toBe('second');
    s = chatReducer(s, { type: 'history', direction: 'prev' });
    expect(s.editor.text).toBe('first');
    s = chatReducer(s, { type: 'history', direction: 'prev' });
    expect(s.editor.text).toBe('first');
    s = chatReducer(s, { type: 'history', direction: 'next' });
    expect(s.editor.text).toBe('second');
    s = chatReducer(s, { type: 'history', direction: 'next' });
    expect(s.editor.text).toBe('draft');
  });

  it('does not repeat the same entry twice in a row', () => {
    expect(chatReducer(state(), { type: 'submitted', text: 'second' }).history).toEqual(['first', 'second']);
  });

  it('moves finished parts of the live answer to the scrollback, then its end, spaced as the markdown says', () => {
    let s = initialState({ model: 'm', toolsEnabled: true });
    s = chatReducer(s, { type: 'commitLive', text: 'first block', gap: true });
    s = chatReducer(s, { type: 'commitLive', text: '```js\na()', gap: false });
    s = chatReducer(s, { type: 'endLive', text: '```js\nb()\n```', cancelled: false });
    expect(s.items.map(({ text, continued, gap }) => ({ text, continued, gap }))).toEqual([
      { text: 'first block', continued: undefined, gap: undefined },
      { text: '```js\na()', continued: true, gap: true },
      { text: '```js\nb()\n```', continued: true, gap: false },
    ]);
    expect(s).toMatchObject({ live: '', liveContinues: false, liveGap: false });
  });
});
