import type { Key } from 'ink';
import { PLAIN_KEY } from '../shared/plain-key.js';

/**
 * The bytes a key sends that no text holds: Ctrl+letter, Backspace (Ctrl+H), Delete. Not Tab,
 * CR or LF: a paste brings those as text (a line break inside a read is a pasted line).
 */
const KEY_BYTE = /[\u0000-\u0008\u000b\u000c\u000e-\u001a\u007f]/;
const KEY_BYTES = /([\u0000-\u0008\u000b\u000c\u000e-\u001a\u007f])/;

/** One key byte as Ink reads it when it comes alone (its parse-keypress). */
function keyOfByte(byte: string): { input: string; key: Key } {
  if (byte === '\b') return { input: '', key: { ...PLAIN_KEY, backspace: true } };
  if (byte === '\u007f') return { input: '', key: { ...PLAIN_KEY, delete: true } };
  return { input: String.fromCharCode(byte.charCodeAt(0) + 96), key: { ...PLAIN_KEY, ctrl: true } };
}

/**
 * One read from the terminal as the key presses in it. Ink splits a read at escape sequences
 * only, so text and the keys typed right after it (under load, or a paste and then Ctrl+G) come
 * as one string, and the keys would be lost in the text: they are split off here, in order.
 */
export function splitRead(input: string, key: Key): { input: string; key: Key }[] {
  if (input.length < 2 || key.ctrl || key.meta || !KEY_BYTE.test(input)) return [{ input, key }];
  return input
    .split(KEY_BYTES)
    .filter((piece) => piece !== '')
    .map((piece) => (KEY_BYTE.test(piece) ? keyOfByte(piece) : { input: piece, key: PLAIN_KEY }));
}
