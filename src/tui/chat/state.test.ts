import { describe, expect, it } from 'vitest';
import { withText } from '../shared/editor.js';
import { expandPastes } from './paste.js';
import { itemIdCounter, stampItemIds } from './item-ids.js';
import { chatReducer, initialState, type ChatEvent, type ChatState } from './state.js';

const after = (state: ChatState, ...events: ChatEvent[]) => events.reduce(chatReducer, state);

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
    s = chatReducer(s, { type: 'commitLive', itemId: 1, text: 'first block', gap: true });
    s = chatReducer(s, { type: 'commitLive', itemId: 2, text: '```js\na()', gap: false });
    s = chatReducer(s, { type: 'endLive', itemId: 3, text: '```js\nb()\n```', cancelled: false });
    expect(s.items.map(({ text, continued, gap }) => ({ text, continued, gap }))).toEqual([
      { text: 'first block', continued: undefined, gap: undefined },
      { text: '```js\na()', continued: true, gap: true },
      { text: '```js\nb()\n```', continued: true, gap: false },
    ]);
    expect(s).toMatchObject({ live: '', liveContinues: false, liveGap: false });
  });

  it("the rest of a long list item is printed without the item's marker, until the item is done", () => {
    const s = after(
      initialState({ model: 'm', toolsEnabled: true }),
      { type: 'commitLive', itemId: 1, text: '2. first rows', gap: false, continuesItem: true },
      // A block kept live is the same item still.
      { type: 'commitLive', itemId: 2, text: '2. more rows\n   - a nested item', gap: false, keep: '2. more rows\n   - a nested item' },
      { type: 'commitLive', itemId: 3, text: '2. more rows\n   - a nested item\n   - another', gap: true },
      { type: 'endLive', itemId: 4, text: 'The end.', cancelled: false },
    );
    expect(s.items.map((item) => item.continuesItem)).toEqual([undefined, true, true, undefined]);
    expect(s.liveContinuesItem).toBe(false);
  });
});

describe('the composer and long texts', () => {
  const fresh = (history: string[] = []) => initialState({ model: 'm', toolsEnabled: true, history });
  const lines = (n: number, prefix = 'line') => Array.from({ length: n }, (_, i) => `${prefix} ${i}`).join('\n');

  it('a paste the terminal split goes on one placeholder, whose line count follows', () => {
    let s = after(fresh(), { type: 'edit', editor: withText('see: ') }, { type: 'paste', text: `${lines(100)}\n` });
    expect(s.editor.text).toBe('see: [Pasted text #1: 101 lines]');
    s = after(s, { type: 'paste', text: lines(100, 'more'), join: true });
    expect(s.editor.text).toBe('see: [Pasted text #1: 200 lines]');
    expect(s.pastes).toHaveLength(1);
    expect(expandPastes(s.editor.text, s.pastes)).toBe(`see: ${lines(100)}\n${lines(100, 'more')}`);
    // A second paste, apart from the first, is a paste of its own.
    s = after(s, { type: 'edit', editor: { ...s.editor, text: `${s.editor.text} `, cursor: s.editor.cursor + 1 } }, { type: 'paste', text: lines(5) });
    expect(s.editor.text).toBe('see: [Pasted text #1: 200 lines] [Pasted text #2: 5 lines]');
  });

  it('a placeholder goes whole, and a paste holding $& or $\' comes back as it was', () => {
    const pasted = `${lines(4)}\ncost: $& and $' and $1`;
    let s = after(fresh(), { type: 'paste', text: pasted });
    expect(expandPastes(s.editor.text, s.pastes)).toBe(pasted);
    s = after(s, { type: 'unpaste', start: 0 });
    expect(s.editor).toEqual({ text: '', cursor: 0 });
    // Nothing refers to it any more: the next paste is #1 again.
    expect(after(s, { type: 'paste', text: lines(5) }).editor.text).toBe('[Pasted text #1: 5 lines]');
  });

  it('an input from the history too long to edit comes back collapsed, and the same paste each time', () => {
    const huge = 'x'.repeat(100_000);
    let s = after(fresh([huge, 'short one']), { type: 'history', direction: 'prev' }, { type: 'history', direction: 'prev' });
    expect(s.editor.text).toBe('[Pasted text #1: 100000 characters]');
    s = after(s, { type: 'history', direction: 'next' }, { type: 'history', direction: 'prev' });
    expect(s.pastes).toEqual([huge]);
    expect(expandPastes(s.editor.text, s.pastes)).toBe(huge);
  });

  it('walking back puts the cursor on an input\'s first line (↑ goes on), walking forward on its last', () => {
    const multi = 'first line\nsecond line\nthird';
    let s = after(fresh([multi, 'later']), { type: 'history', direction: 'prev' }, { type: 'history', direction: 'prev' });
    expect(s.editor).toEqual({ text: multi, cursor: 'first line'.length });
    s = after(fresh(['earlier', multi]), { type: 'history', direction: 'prev' }, { type: 'history', direction: 'prev' }, { type: 'history', direction: 'next' });
    expect(s.editor).toEqual({ text: multi, cursor: multi.length });
  });

  it('text composed whole (a picked input, what $EDITOR wrote) is editable unless too long', () => {
    expect(after(fresh(), { type: 'compose', text: lines(20) }).editor).toEqual(withText(lines(20)));
    expect(after(fresh(), { type: 'compose', text: lines(500) }).editor.text).toBe('[Pasted text #1: 500 lines]');
  });

  it('a resumed answer keeps its cancelled mark', () => {
    const s = after(fresh(), { type: 'conversation', id: 'c', items: [{ itemId: 1, kind: 'user', text: 'q' }, { itemId: 2, kind: 'assistant', text: 'partial', cancelled: true }] });
    expect(s.items.map(({ kind, cancelled }) => ({ kind, cancelled }))).toEqual([
      { kind: 'user', cancelled: undefined },
      { kind: 'assistant', cancelled: true },
    ]);
  });
});

describe('the reducer is pure', () => {
  // React runs a reducer twice per event in strict and development mode: both runs must agree.
  const events: ChatEvent[] = [
    { type: 'item', itemId: 1, kind: 'user', text: 'q' },
    { type: 'busy', busy: true, at: 1000 },
    { type: 'commitLive', itemId: 2, text: 'first block', gap: true },
    { type: 'endLive', itemId: 3, text: 'the end', cancelled: false },
    { type: 'conversation', id: 'c', items: [{ itemId: 4, kind: 'notice', text: 'Resumed.' }] },
  ];

  it('gives equal states for the same event run twice, ids and all', () => {
    let state = initialState({ model: 'm', toolsEnabled: true });
    for (const event of events) {
      const first = chatReducer(state, event);
      const second = chatReducer(state, event);
      expect(second).toEqual(first);
      state = first;
    }
    expect(state.items.map((item) => item.id)).toEqual([1, 2, 3, 4]);
    expect(state.progress?.startedAt).toBe(1000);
  });
});

describe('item ids', () => {
  it('are made when the event is made, one per item, counted per session', () => {
    const nextId = itemIdCounter();
    expect(stampItemIds({ type: 'item', kind: 'notice', text: 'a' }, nextId)).toMatchObject({ itemId: 1 });
    expect(stampItemIds({ type: 'conversation', id: 'c', items: [{ kind: 'user', text: 'q' }, { kind: 'assistant', text: 'a' }] }, nextId)).toMatchObject({
      items: [{ itemId: 2 }, { itemId: 3 }],
    });
    expect(stampItemIds({ type: 'live', text: 'x' }, nextId)).toEqual({ type: 'live', text: 'x' });
    expect(stampItemIds({ type: 'endLive', text: 'x', cancelled: false }, itemIdCounter())).toMatchObject({ itemId: 1 });
  });
});
