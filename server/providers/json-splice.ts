/**
 * Rewriting one string field of a JSON text without parsing and re-encoding the rest: how a relay
 * puts the gateway's model id into an answer it otherwise passes on as the upstream wrote it.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;

/** The index just past the string that opens at `start` (a `"`), or -1 when it does not close. */
export function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === BACKSLASH) i++;
    else if (code === QUOTE) return i + 1;
  }
  return -1;
}

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/** The index of the first character from `from` on that is not JSON whitespace. */
export function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * `text` (a JSON object) with the string value of the key `key` at nesting `depth` (1: the
 * top-level object, 2: an object inside it) replaced by `replacement` (already JSON text), the
 * first such key in the text; null when there is none, or when the value found is not the string
 * `expected` (what the caller read when it parsed the text: a check that the splice hits the field
 * meant, whatever the text holds; undefined: any string). Strings are skipped whole, so a key's
 * name inside a value never matches.
 */
export function spliceStringField(text: string, key: string, depth: number, expected: string | undefined, replacement: string): string | null {
  let level = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === OPEN_BRACE || code === OPEN_BRACKET) level++;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) level--;
    else if (code === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return null;
      // A key is a string followed by a colon; only one named `key` at the right depth is the field.
      const colon = skipSpace(text, end);
      if (text.charCodeAt(colon) === COLON && level === depth && end - i === key.length + 2 && text.startsWith(key, i + 1)) {
        const valueStart = skipSpace(text, colon + 1);
        if (text.charCodeAt(valueStart) !== QUOTE) return null;
        const valueEnd = stringEnd(text, valueStart);
        if (valueEnd < 0 || (expected !== undefined && decoded(text.slice(valueStart, valueEnd)) !== expected)) return null;
        return text.slice(0, valueStart) + replacement + text.slice(valueEnd);
      }
      i = end - 1;
    }
  }
  return null;
}

/** A JSON string literal's value (undefined when it is not one). */
export function decoded(literal: string): string | undefined {
  // Most values carry no escape: compared without a parse.
  if (!literal.includes('\\')) return literal.slice(1, -1);
  try {
    const value: unknown = JSON.parse(literal);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
