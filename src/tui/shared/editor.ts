/**
 * The composer's text and cursor, and every edit as a pure function (tested without a terminal).
 * Pastes arrive as one chunk: bracketed-paste markers are dropped and their line breaks kept, so
 * a pasted block stays one message.
 *
 * Every function here walks only from the cursor to what it needs (a line, a word): no regular
 * expression over the whole text, so a long draft costs what the edit touches.
 */
export interface Editor {
  text: string;
  cursor: number;
}

export const emptyEditor: Editor = { text: '', cursor: 0 };

const PASTE_MARKERS = /\u001b\[20[01]~/g;

/** Text as typed or pasted: paste markers removed, CR and CRLF as LF, other controls dropped. */
export function cleanInput(input: string): string {
  return input
    .replace(PASTE_MARKERS, '')
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** A cursor never rests between the two halves of a surrogate pair (an emoji): it steps before it. */
function onCharacter(text: string, cursor: number): number {
  return cursor > 0 && isLowSurrogate(text.charCodeAt(cursor)) && isHighSurrogate(text.charCodeAt(cursor - 1)) ? cursor - 1 : cursor;
}

/** The length of the character before `cursor` (2 for a surrogate pair). */
const sizeBefore = (text: string, cursor: number) => (cursor > 1 && isLowSurrogate(text.charCodeAt(cursor - 1)) && isHighSurrogate(text.charCodeAt(cursor - 2)) ? 2 : 1);

/** The length of the character at `cursor`. */
const sizeAt = (text: string, cursor: number) => (isHighSurrogate(text.charCodeAt(cursor)) && isLowSurrogate(text.charCodeAt(cursor + 1)) ? 2 : 1);

export function insert(editor: Editor, input: string): Editor {
  const clean = cleanInput(input);
  if (!clean) return editor;
  return { text: editor.text.slice(0, editor.cursor) + clean + editor.text.slice(editor.cursor), cursor: editor.cursor + clean.length };
}

/** Removes `from`..`to` of the text and puts the cursor where it was cut. */
export function cut(editor: Editor, from: number, to: number): Editor {
  if (from >= to) return editor;
  return { text: editor.text.slice(0, from) + editor.text.slice(to), cursor: from };
}

export function backspace(editor: Editor): Editor {
  if (editor.cursor === 0) return editor;
  return cut(editor, editor.cursor - sizeBefore(editor.text, editor.cursor), editor.cursor);
}

const isSpace = (char: string) => char === ' ' || char === '\t' || char === '\n';
/** Letters, digits and underscore make a word for Alt+B / Alt+F (as readline has it). */
const WORD_CHARACTER = /[\p{L}\p{N}_]/u;
const isWordCharacter = (char: string) => WORD_CHARACTER.test(char);

/** Where the previous run of `inRun` characters begins, after skipping what is not in it. */
function runStartBefore(text: string, cursor: number, inRun: (char: string) => boolean): number {
  let at = cursor;
  while (at > 0 && !inRun(text[at - 1] as string)) at--;
  while (at > 0 && inRun(text[at - 1] as string)) at--;
  return at;
}

/** Where the next run of `inRun` characters ends, after skipping what is not in it. */
function runEndAfter(text: string, cursor: number, inRun: (char: string) => boolean): number {
  let at = cursor;
  while (at < text.length && !inRun(text[at] as string)) at++;
  while (at < text.length && inRun(text[at] as string)) at++;
  return at;
}

/** Ctrl+W: back to the previous whitespace, as a shell does (`unix-word-rubout`). */
export function deleteWord(editor: Editor): Editor {
  return cut(editor, runStartBefore(editor.text, editor.cursor, (char) => !isSpace(char)), editor.cursor);
}

/** Alt+← / Alt+B, Alt+→ / Alt+F: to the start of this or the previous word, to the end of this or the next. */
export function moveWord(editor: Editor, direction: 'left' | 'right'): Editor {
  const cursor = direction === 'left' ? runStartBefore(editor.text, editor.cursor, isWordCharacter) : runEndAfter(editor.text, editor.cursor, isWordCharacter);
  return { ...editor, cursor };
}

/** The line the cursor is on: where it starts, and where it ends (its line break, or the end). */
function lineAround(text: string, cursor: number): { start: number; end: number } {
  const start = text.lastIndexOf('\n', cursor - 1) + 1;
  const nextBreak = text.indexOf('\n', cursor);
  return { start, end: nextBreak < 0 ? text.length : nextBreak };
}

export function move(editor: Editor, to: 'left' | 'right' | 'home' | 'end'): Editor {
  const { text, cursor } = editor;
  switch (to) {
    case 'left':
      return { ...editor, cursor: Math.max(0, cursor - sizeBefore(text, cursor)) };
    case 'right':
      return { ...editor, cursor: Math.min(text.length, cursor + sizeAt(text, cursor)) };
    case 'home':
      return { ...editor, cursor: lineAround(text, cursor).start };
    case 'end':
      return { ...editor, cursor: lineAround(text, cursor).end };
  }
}

/**
 * ↑ / ↓ in a draft of several lines: the same column of the line above or below (or that line's
 * end when it is shorter). Null on the first line going up or the last going down: there the
 * key walks the input history instead.
 */
export function moveLine(editor: Editor, direction: 'up' | 'down'): Editor | null {
  const { text, cursor } = editor;
  const line = lineAround(text, cursor);
  const column = cursor - line.start;
  if (direction === 'up') {
    if (line.start === 0) return null;
    const above = lineAround(text, line.start - 1);
    return { ...editor, cursor: onCharacter(text, Math.min(above.start + column, above.end)) };
  }
  if (line.end === text.length) return null;
  const below = lineAround(text, line.end + 1);
  return { ...editor, cursor: onCharacter(text, Math.min(below.start + column, below.end)) };
}

/** Ctrl+K: the rest of the line; at its end, the line break (the next line joins this one). */
export function killToLineEnd(editor: Editor): Editor {
  const { end } = lineAround(editor.text, editor.cursor);
  return cut(editor, editor.cursor, end === editor.cursor ? Math.min(editor.text.length, end + 1) : end);
}

/** Ctrl+U: the line before the cursor; at its start, the line break before it. */
export function killToLineStart(editor: Editor): Editor {
  const { start } = lineAround(editor.text, editor.cursor);
  return cut(editor, start === editor.cursor ? Math.max(0, start - 1) : start, editor.cursor);
}

export const withText = (text: string): Editor => ({ text, cursor: text.length });

/**
 * A one-line field typed at its end (the dashboard's filter and jump): Backspace takes the last
 * character, anything else typed is appended, cleaned like the composer's input.
 */
export function editLine(text: string, input: string, key: { backspace: boolean; delete: boolean; ctrl: boolean; meta: boolean }): string {
  if (key.backspace || key.delete) return backspace(withText(text)).text;
  if (key.ctrl || key.meta) return text;
  return insert(withText(text), input.replace(/[\r\n]+/g, '')).text;
}
