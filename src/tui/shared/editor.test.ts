import { describe, expect, it } from 'vitest';
import { backspace, cleanInput, deleteWord, editLine, emptyEditor, insert, move, withText } from './editor.js';

describe('the composer editor', () => {
  it('inserts at the cursor', () => {
    const editor = move(move(insert(emptyEditor, 'helo'), 'left'), 'left');
    expect(insert(editor, 'l')).toEqual({ text: 'hello', cursor: 3 });
  });

  it('keeps a pasted block whole: markers dropped, CR and CRLF as line breaks', () => {
    expect(cleanInput('\u001b[200~line one\r\nline two\rthree\u001b[201~')).toBe('line one\nline two\nthree');
    expect(insert(emptyEditor, '\u001b[200~a\rb\u001b[201~').text).toBe('a\nb');
  });

  it('drops control characters other than line breaks and tabs', () => {
    expect(cleanInput('a\u0007b\tc')).toBe('ab\tc');
  });

  it('backspace removes a whole emoji (surrogate pair)', () => {
    expect(backspace(withText('hi 👋'))).toEqual({ text: 'hi ', cursor: 3 });
    expect(backspace(emptyEditor)).toEqual(emptyEditor);
  });

  it('deletes the previous word, and moves to line start and end', () => {
    expect(deleteWord(withText('one two three')).text).toBe('one two ');
    const multi = { text: 'first\nsecond line', cursor: 9 };
    expect(move(multi, 'home').cursor).toBe(6);
    expect(move(multi, 'end').cursor).toBe(17);
  });
});

describe('a one-line field typed at its end', () => {
  const key = (over: Partial<{ backspace: boolean; delete: boolean; ctrl: boolean; meta: boolean }> = {}) => ({ backspace: false, delete: false, ctrl: false, meta: false, ...over });

  it('appends what is typed, cleaned, and takes back whole characters', () => {
    expect(editLine('sho', 'p', key())).toBe('shop');
    expect(editLine('a', 'b\u0007c\r\n', key())).toBe('abc');
    expect(editLine('shop😀', '', key({ delete: true }))).toBe('shop');
    expect(editLine('', '', key({ backspace: true }))).toBe('');
    expect(editLine('shop', 'u', key({ ctrl: true }))).toBe('shop');
  });
});
