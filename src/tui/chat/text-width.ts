import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';
import { wrapAnsiHard } from './wrap-ansi.js';

/** Printable ASCII: a column a character, nothing to measure. */
const PLAIN = /^[\u0020-\u007e]*$/;

/**
 * Columns a (possibly coloured) text takes. Plain ASCII is counted, not measured: measuring
 * segments every character (about 60 ms for a 100-row table, drawn again at every redraw).
 */
export function textWidth(text: string): number {
  const visible = stripVTControlCharacters(text);
  return PLAIN.test(visible) ? visible.length : stringWidth(visible);
}

/** wrap-ansi, skipped for a line that fits already (most of them); a hard wrap measured as textWidth measures (wrap-ansi.ts). */
export function wrapToWidth(text: string, width: number, options: { hard: boolean; trim: boolean }): string {
  if (!text.includes('\n') && textWidth(text) <= width && (!options.trim || text.trim() === text)) return text;
  return options.hard ? wrapAnsiHard(text, width, options.trim) : wrapAnsi(text, width, options);
}
