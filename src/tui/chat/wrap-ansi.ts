import { textWidth } from './text-width.js';

/**
 * wrap-ansi 9.0.2 (MIT, Sindre Sorhus, chalk/wrap-ansi), hard wrapping with word wrap, measured
 * with textWidth: wrap-ansi measures the row being filled at every word with its own
 * string-width (7), which segments every character — 3.7 ms for a list item of five rows, and a
 * streaming item is rendered a few times at every delta (live-split.ts). Same rows, same codes.
 */

const ESCAPES = new Set(['\u001B', '\u009B']);
const END_CODE = 39;
const ANSI_ESCAPE_BELL = '\u0007';
const ANSI_CSI = '[';
const ANSI_OSC = ']';
const ANSI_SGR_TERMINATOR = 'm';
const ANSI_ESCAPE_LINK = `${ANSI_OSC}8;;`;
const ESCAPE_AT = new RegExp(`(?:\\${ANSI_CSI}(?<code>\\d+)m|\\${ANSI_ESCAPE_LINK}(?<uri>.*)${ANSI_ESCAPE_BELL})`);

const wrapAnsiCode = (code: number) => `\u001B${ANSI_CSI}${code}${ANSI_SGR_TERMINATOR}`;
const wrapAnsiHyperlink = (url: string) => `\u001B${ANSI_ESCAPE_LINK}${url}${ANSI_ESCAPE_BELL}`;

/** The code that closes an SGR code that opens a style (ansi-styles' `codes`). */
function closingCode(code: number): number | undefined {
  if (code === 0) return 0;
  if (code === 1 || code === 2) return 22;
  if (code >= 3 && code <= 9 && code !== 5 && code !== 6) return code + 20;
  if (code === 53) return 55;
  if ((code >= 30 && code <= 37) || (code >= 90 && code <= 97)) return 39;
  if ((code >= 40 && code <= 47) || (code >= 100 && code <= 107)) return 49;
  return undefined;
}

/** Wraps a long word across rows; escape codes take no columns. */
function wrapWord(rows: string[], word: string, columns: number): void {
  const characters = [...word];
  let isInsideEscape = false;
  let isInsideLinkEscape = false;
  let visible = textWidth(rows.at(-1) ?? '');
  for (const [index, character] of characters.entries()) {
    const characterLength = textWidth(character);
    if (visible + characterLength <= columns) {
      rows[rows.length - 1] += character;
    } else {
      rows.push(character);
      visible = 0;
    }
    if (ESCAPES.has(character)) {
      isInsideEscape = true;
      isInsideLinkEscape = characters.slice(index + 1, index + 1 + ANSI_ESCAPE_LINK.length).join('') === ANSI_ESCAPE_LINK;
    }
    if (isInsideEscape) {
      if (isInsideLinkEscape) {
        if (character === ANSI_ESCAPE_BELL) {
          isInsideEscape = false;
          isInsideLinkEscape = false;
        }
      } else if (character === ANSI_SGR_TERMINATOR) {
        isInsideEscape = false;
      }
      continue;
    }
    visible += characterLength;
    if (visible === columns && index < characters.length - 1) {
      rows.push('');
      visible = 0;
    }
  }
  // The last row copied over may be only escape codes.
  if (!visible && (rows.at(-1) ?? '').length > 0 && rows.length > 1) {
    const last = rows.pop() ?? '';
    rows[rows.length - 1] += last;
  }
}

/** Trims spaces at the end, escape codes aside. */
function trimSpacesRight(row: string): string {
  const words = row.split(' ');
  let last = words.length;
  while (last > 0 && textWidth(words[last - 1] ?? '') === 0) last--;
  return last === words.length ? row : words.slice(0, last).join(' ') + words.slice(last).join('');
}

function wrapLine(line: string, columns: number, trim: boolean): string {
  if (trim && line.trim() === '') return '';
  const words = line.split(' ');
  const lengths = words.map((word) => textWidth(word));
  let rows = [''];
  // The width of the row being filled, kept as words are added (wrap-ansi measures it again each time).
  let rowLength = 0;
  for (const [index, word] of words.entries()) {
    if (trim) {
      const row = rows.at(-1) ?? '';
      const trimmed = row.trimStart();
      if (trimmed !== row) {
        rows[rows.length - 1] = trimmed;
        rowLength = textWidth(trimmed);
      }
    }
    if (index !== 0) {
      if (rowLength >= columns && !trim) {
        rows.push('');
        rowLength = 0;
      }
      if (rowLength > 0 || !trim) {
        rows[rows.length - 1] += ' ';
        rowLength++;
      }
    }
    const length = lengths[index] ?? 0;
    if (length > columns) {
      const remainingColumns = columns - rowLength;
      const breaksStartingThisLine = 1 + Math.floor((length - remainingColumns - 1) / columns);
      const breaksStartingNextLine = Math.floor((length - 1) / columns);
      if (breaksStartingNextLine < breaksStartingThisLine) rows.push('');
      wrapWord(rows, word, columns);
      rowLength = textWidth(rows.at(-1) ?? '');
      continue;
    }
    if (rowLength + length > columns && rowLength > 0 && length > 0) {
      rows.push('');
      rowLength = 0;
    }
    rows[rows.length - 1] += word;
    rowLength += length;
  }
  if (trim) rows = rows.map(trimSpacesRight);
  return reopenStyles(rows.join('\n'));
}

/** Closes the style (and link) open at the end of each row and opens it again on the next. */
function reopenStyles(preString: string): string {
  if (!preString.includes('\u001B') && !preString.includes('\u009B')) return preString;
  const pre = [...preString];
  let returnValue = '';
  let escapeCode: number | undefined;
  let escapeUrl: string | undefined;
  let preStringIndex = 0;
  for (const [index, character] of pre.entries()) {
    returnValue += character;
    if (ESCAPES.has(character)) {
      // As wrap-ansi reads it: the first code from here on (a code of several parameters is skipped).
      const groups = ESCAPE_AT.exec(preString.slice(preStringIndex))?.groups ?? {};
      if (groups.code !== undefined) {
        const code = Number.parseFloat(groups.code);
        escapeCode = code === END_CODE ? undefined : code;
      } else if (groups.uri !== undefined) {
        escapeUrl = groups.uri.length === 0 ? undefined : groups.uri;
      }
    }
    const code = escapeCode === undefined ? undefined : closingCode(escapeCode);
    if (pre[index + 1] === '\n') {
      if (escapeUrl) returnValue += wrapAnsiHyperlink('');
      if (escapeCode && code) returnValue += wrapAnsiCode(code);
    } else if (character === '\n') {
      if (escapeCode && code) returnValue += wrapAnsiCode(escapeCode);
      if (escapeUrl) returnValue += wrapAnsiHyperlink(escapeUrl);
    }
    preStringIndex += character.length;
  }
  return returnValue;
}

/** wrap-ansi's `wrapAnsi(text, columns, { hard: true, trim })`. */
export function wrapAnsiHard(text: string, columns: number, trim: boolean): string {
  return text
    .normalize()
    .replaceAll('\r\n', '\n')
    .split('\n')
    .map((line) => wrapLine(line, columns, trim))
    .join('\n');
}
