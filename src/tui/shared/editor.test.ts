import { describe, expect, it } from 'vitest';
import { backspace, cleanInput, deleteWord, editLine, emptyEditor, insert, killToLineEnd, killToLineStart, move, moveLine, moveWord, withText, type Editor } from './editor.js';

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

describe('moving and deleting as a shell does', () => {
  /** The text with a `|` where the cursor is: easier to read than offsets. */
  const shown = ({ text, cursor }: Editor) => `${text.slice(0, cursor)}|${text.slice(cursor)}`;
  const at = (marked: string): Editor => ({ text: marked.replace('|', ''), cursor: marked.indexOf('|') });

  it('moves by words: to the start of this or the previous word, to the end of this or the next', () => {
    expect(shown(moveWord(at('one two-three|'), 'left'))).toBe('one two-|three');
    expect(shown(moveWord(at('one two-|three'), 'left'))).toBe('one |two-three');
    expect(shown(moveWord(at('one |two'), 'left'))).toBe('|one two');
    expect(shown(moveWord(at('|one'), 'left'))).toBe('|one');
    expect(shown(moveWord(at('|one two'), 'right'))).toBe('one| two');
    expect(shown(moveWord(at('one| two'), 'right'))).toBe('one two|');
    expect(shown(moveWord(at('über| café'), 'right'))).toBe('über café|');
    expect(shown(moveWord(at('a\n|b'), 'left'))).toBe('|a\nb');
  });

  it('Ctrl+K deletes to the end of the line, then the line break; Ctrl+U to its start, then the break before', () => {
    expect(shown(killToLineEnd(at('one |two\nthree')))).toBe('one |\nthree');
    expect(shown(killToLineEnd(at('one |\nthree')))).toBe('one |three');
    expect(shown(killToLineEnd(at('end|')))).toBe('end|');
    expect(shown(killToLineStart(at('one\ntwo |three')))).toBe('one\n|three');
    expect(shown(killToLineStart(at('one\n|three')))).toBe('one|three');
    expect(shown(killToLineStart(at('|start')))).toBe('|start');
  });

  it('↑ and ↓ keep the column across lines, at most the line\'s end; null on the first and last line', () => {
    expect(shown(moveLine(at('first line\nsec|ond'), 'up') as Editor)).toBe('fir|st line\nsecond');
    expect(shown(moveLine(at('ab\nlonger| line'), 'up') as Editor)).toBe('ab|\nlonger line');
    expect(shown(moveLine(at('a|b\n\nlast'), 'down') as Editor)).toBe('ab\n|\nlast');
    expect(shown(moveLine(at('ab\n|\nlast'), 'down') as Editor)).toBe('ab\n\n|last');
    expect(moveLine(at('only| line'), 'up')).toBeNull();
    expect(moveLine(at('first\nla|st'), 'down')).toBeNull();
    expect(moveLine(at('fi|rst\nlast'), 'up')).toBeNull();
    // Never between the halves of an emoji.
    expect(shown(moveLine(at('👋x\nx|y'), 'up') as Editor)).toBe('|👋x\nxy');
  });

  it('← and → step over an emoji whole', () => {
    expect(move(withText('a👋'), 'left').cursor).toBe(1);
    expect(move({ text: 'a👋b', cursor: 1 }, 'right').cursor).toBe(3);
  });

  it('Ctrl+W on a long run without spaces takes it at once (no backtracking over the text)', () => {
    const long = 'x'.repeat(200_000);
    expect(deleteWord(withText(`${long} y`)).text).toBe(`${long} `);
    expect(deleteWord(withText(`${long}  `)).text).toBe('');
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
