import type { Key } from 'ink';
import { cleanInput, type Editor } from '../shared/editor.js';

/** A paste of this many lines or characters collapses in the composer. */
export const PASTE_COLLAPSE_LINES = 4;
export const PASTE_COLLAPSE_CHARS = 800;
/**
 * Text that fills the composer whole (an input from the history, what $EDITOR wrote) is there to
 * be edited: it collapses only when it is too large to edit on a screen.
 */
export const COMPOSE_COLLAPSE_LINES = 200;
export const COMPOSE_COLLAPSE_CHARS = 10_000;

/** Lines of a text, counted without splitting it. */
export function countLines(text: string): number {
  let lines = 1;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}

export const isLongPaste = (text: string) => text.length > PASTE_COLLAPSE_CHARS || countLines(text) >= PASTE_COLLAPSE_LINES;
export const isTooLongToEdit = (text: string) => text.length > COMPOSE_COLLAPSE_CHARS || countLines(text) > COMPOSE_COLLAPSE_LINES;

/** The composer's stand-in for a long paste (#1 is the first), sent whole in its place. */
export function pastePlaceholder(n: number, text: string): string {
  const lines = countLines(text);
  return `[Pasted text #${n}: ${lines > 1 ? `${lines} lines` : `${text.length} characters`}]`;
}

/** The composer's text with each collapsed paste back in place. */
export function expandPastes(text: string, pastes: readonly string[]): string {
  // A function, not a string, as the replacement: a paste may hold `$&` or `$'`.
  return pastes.reduce((expanded, paste, i) => expanded.replace(pastePlaceholder(i + 1, paste), () => paste), text);
}

/** The paste whose placeholder ends right at the cursor: Backspace and Ctrl+W take it whole. */
export function placeholderBefore(editor: Editor, pastes: readonly string[]): { index: number; start: number } | null {
  for (let i = pastes.length - 1; i >= 0; i--) {
    const placeholder = pastePlaceholder(i + 1, pastes[i] as string);
    const start = editor.cursor - placeholder.length;
    if (start >= 0 && editor.text.startsWith(placeholder, start)) return { index: i, start };
  }
  return null;
}

/** What a terminal in bracketed-paste mode wraps a paste in (Ink passes the markers on without their ESC). */
const PASTE_START = '[200~';
const PASTE_END = '[201~';
export const BRACKETED_PASTE_ON = '\u001b[?2004h';
export const BRACKETED_PASTE_OFF = '\u001b[?2004l';

/**
 * Puts a bracketed paste back together. A terminal hands a large paste over in many reads (about
 * 4 KB each): each one alone would look like a paste of its own. Between the markers every piece
 * is text, Enter included; the whole paste comes out once, at its end marker.
 */
export function pasteCollector() {
  let pieces: string[] | null = null;
  return {
    /** A paste is under way: everything read is text until its end marker. */
    collecting: () => pieces !== null,
    /** A key press: the finished paste, `pending` inside one, or null when no paste is under way. */
    take(input: string, key: Key): string | 'pending' | null {
      const marker = !key.ctrl && !key.meta;
      if (pieces === null) {
        if (!(marker && input === PASTE_START)) return null;
        pieces = [];
        return 'pending';
      }
      if (marker && input === PASTE_END) {
        const text = cleanInput(pieces.join(''));
        pieces = null;
        return text;
      }
      // Ink gives keys it names (Enter, Tab) no text: inside a paste they are characters again.
      pieces.push(input || (key.return ? '\r' : key.tab ? '\t' : ''));
      return 'pending';
    },
  };
}
