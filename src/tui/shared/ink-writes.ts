import { stripVTControlCharacters } from 'node:util';
import { rowsAbove } from './rewrap-erase.js';

/**
 * What Ink 6 has put on the terminal, read from what it writes (its log-update and <Static>):
 * - a frame is written whole in one write, after the erase of the one before (ansi-escapes'
 *   eraseLines); an erase alone (log.clear) leaves no frame;
 * - new <Static> output is written alone between an erase alone and the frame after it;
 * - writes of control sequences only (synchronized output, the cursor, bracketed paste, OSC 52)
 *   draw nothing.
 * Static output is kept as its length and its end only: enough to find it again in a write.
 */
export interface InkScreen {
  /** The frame drawn last (the cursor at its end). */
  frame: string;
  /** How long all static output so far is, and its last characters. */
  staticLength: number;
  staticTail: string;
  /** A write that followed an erase alone: static output if another printable write follows it at once, else a frame. */
  maybeStatic: string | null;
  afterErase: boolean;
}

export const EMPTY_SCREEN: InkScreen = { frame: '', staticLength: 0, staticTail: '', maybeStatic: null, afterErase: false };

const ERASE_LINES = /^(?:\u001b\[2K(?:\u001b\[1A)?)+\u001b\[G/;
/** ansi-escapes' clearTerminal: the screen, the scrollback, the cursor home. */
export const CLEAR_TERMINAL = '\u001b[2J\u001b[3J\u001b[H';
const TAIL = 256;

/** The screen after `written`. */
export function afterWrite(screen: InkScreen, written: string): InkScreen {
  const erase = written === '' ? '' : ERASE_LINES.exec(written)?.[0];
  if (erase !== undefined) {
    const frame = written.slice(erase.length);
    return { ...screen, frame, maybeStatic: null, afterErase: frame === '' };
  }
  if (stripVTControlCharacters(written) === '') return screen;
  const next = { ...screen, frame: written, maybeStatic: screen.afterErase ? written : null, afterErase: false };
  if (screen.maybeStatic === null) return next;
  const staticTail = (screen.staticTail + screen.maybeStatic).slice(-TAIL);
  return { ...next, staticLength: screen.staticLength + screen.maybeStatic.length, staticTail };
}

/**
 * Ink clears the terminal, scrollback included, and prints all static output again when its last
 * frame was as tall as the terminal is now (a height shrink under a tall live answer), then
 * writes the frame without the line break its line count assumes, so the next frame erases a row
 * too many. In its place: the rows of the last frame still on the screen are erased (those the
 * shrink pushed into the scrollback cannot be reached), and the new frame is written as Ink counts it.
 * `frame` is what Ink then believes it drew.
 * Null when `written` is no such write, or its static output is not the one seen.
 */
export function redrawInPlace(screen: InkScreen, written: string, size: { columns: number; rows: number }): { write: string; frame: string } | null {
  if (!written.startsWith(CLEAR_TERMINAL)) return null;
  const outputAt = CLEAR_TERMINAL.length + screen.staticLength;
  if (written.length < outputAt || !written.slice(0, outputAt).endsWith(screen.staticTail)) return null;
  const output = written.slice(outputAt);
  // As Ink's log.sync counts it: a line break after a frame shorter than the terminal.
  const frame = output.split('\n').length < size.rows ? `${output}\n` : output;
  const above = rowsAbove(screen.frame, size.columns);
  // Of a frame taller than the terminal, the rows that fit: the rest would only scroll into the
  // scrollback (Ink's next erase stops at the top of the screen).
  const shown = frame.split('\n').slice(-size.rows).join('\n');
  return { write: `\r${above > 0 ? `\u001b[${above}A` : ''}\u001b[J${shown}`, frame };
}
