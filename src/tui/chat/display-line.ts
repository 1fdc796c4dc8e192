import stringWidth from 'string-width';

/**
 * Code units of a text read to fill a row: a column takes at least one, at most a few (a wide
 * or combined character); what lies beyond is never looked at.
 */
const UNITS_PER_COLUMN = 4;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/** Printable ASCII: a column a character, no measuring needed. */
const PLAIN_RUN = /[\u0020-\u007e]+/y;
const OTHER_RUN = /[^\u0020-\u007e]+/y;

/**
 * How many code units of `text`, from `start`, fit in `columns` (whole characters only; at least
 * one character when there is one, so that a row always moves on). Reads only what the row needs,
 * and measures only what is not plain ASCII.
 */
export function unitsFitting(text: string, start: number, columns: number): number {
  const piece = text.slice(start, start + Math.max(1, columns) * UNITS_PER_COLUMN);
  let used = 0;
  let at = 0;
  while (at < piece.length && used < columns) {
    PLAIN_RUN.lastIndex = at;
    const plain = PLAIN_RUN.exec(piece);
    if (plain) {
      const take = Math.min(plain[0].length, columns - used);
      used += take;
      at += take;
      continue;
    }
    OTHER_RUN.lastIndex = at;
    const other = OTHER_RUN.exec(piece)?.[0] ?? '';
    for (const { segment } of graphemes.segment(other)) {
      const size = stringWidth(segment);
      if (used + size > columns && at > 0) return at;
      used += size;
      at += segment.length;
    }
  }
  return at;
}

/**
 * One row of a list for any text, however long: its start cut first, line breaks as ⏎, controls
 * as spaces, then cut to `width` columns with an ellipsis. Ink would measure and truncate the
 * whole text of a row (ten seconds for 56 KB: it froze the chat); this reads a few hundred characters.
 */
export function displayLine(text: string, width: number): string {
  const columns = Math.max(1, Math.floor(width));
  const head = text.length > columns * UNITS_PER_COLUMN ? text.slice(0, columns * UNITS_PER_COLUMN) : text;
  const flat = head.replace(/\r?\n/g, ' ⏎ ').replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  // A text cut short needs the ellipsis anyway: only a whole one is measured.
  if (head.length === text.length && stringWidth(flat) <= columns) return flat;
  // What fits beside the ellipsis that says there is more.
  return `${flat.slice(0, columns > 1 ? unitsFitting(flat, 0, columns - 1) : 0)}…`;
}
