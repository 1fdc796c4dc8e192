/**
 * The composer's text and cursor, and every edit as a pure function (tested without a terminal).
 * Pastes arrive as one chunk: bracketed-paste markers are dropped and their line breaks kept, so
 * a pasted block stays one message.
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

export function insert(editor: Editor, input: string): Editor {
  const clean = cleanInput(input);
  if (!clean) return editor;
  return { text: editor.text.slice(0, editor.cursor) + clean + editor.text.slice(editor.cursor), cursor: editor.cursor + clean.length };
}

export function backspace(editor: Editor): Editor {
  if (editor.cursor === 0) return editor;
  const step = /[\uDC00-\uDFFF]/.test(editor.text[editor.cursor - 1] ?? '') && editor.cursor > 1 ? 2 : 1;
  return { text: editor.text.slice(0, editor.cursor - step) + editor.text.slice(editor.cursor), cursor: editor.cursor - step };
}

export function deleteWord(editor: Editor): Editor {
  const before = editor.text.slice(0, editor.cursor).replace(/\S+\s*$/, '');
  return { text: before + editor.text.slice(editor.cursor), cursor: before.length };
}

export function move(editor: Editor, to: 'left' | 'right' | 'home' | 'end'): Editor {
  const lineStart = editor.text.lastIndexOf('\n', editor.cursor - 1) + 1;
  const nextBreak = editor.text.indexOf('\n', editor.cursor);
  const lineEnd = nextBreak < 0 ? editor.text.length : nextBreak;
  const cursor =
    to === 'left' ? Math.max(0, editor.cursor - 1) : to === 'right' ? Math.min(editor.text.length, editor.cursor + 1) : to === 'home' ? lineStart : lineEnd;
  return { ...editor, cursor };
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
