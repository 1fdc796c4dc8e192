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

  it('moves the finished part of the live answer to the scrollback', () => {
    let s = chatReducer(initialState({ model: 'm', toolsEnabled: true }), { type: 'live', text: 'done part\n\nstill going' });
    s = chatReducer(s, { type: 'flushLive', length: 11 });
    expect(s.items.at(-1)).toMatchObject({ kind: 'assistant', text: 'done part', continued: true });
    expect(s.live).toBe('still going');
  });
});
