import { writtenWeight } from '../tokens.js';
import { decoded, skipSpace, stringEnd } from '../json-splice.js';

/** What the relay reads of a chunk: whether it has choices, and the characters of text it writes. */
export interface ScannedChunk {
  hasChoices: boolean;
  written: number;
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/** The names whose text is written: the answer's, the reasoning (under either name), a tool call's arguments. */
const TEXT_NAMES = ['content', 'reasoning_content', 'reasoning', 'arguments'] as const;
/** Every name the scan reads, quoted (a name inside a string value has its quotes escaped: it never matches). */
const NAMES = new RegExp(`"(${['choices', 'usage', 'error', ...TEXT_NAMES].join('|')})"`, 'g');

/** Where the value of the key that ends just before `from` begins, or -1 when no colon follows (it is no key). */
function valueAt(text: string, from: number): number {
  const colon = skipSpace(text, from);
  return text.charCodeAt(colon) === COLON ? skipSpace(text, colon + 1) : -1;
}

/** The `writtenWeight` of the string literal `text[start, end)` (quotes included), decoded where it has an escape; undefined where it cannot be. */
function literalWeight(text: string, start: number, end: number): number | undefined {
  for (let i = start + 1; i < end - 1; i++) {
    if (text.charCodeAt(i) !== BACKSLASH) continue;
    const value = decoded(text.slice(start, end));
    return value === undefined ? undefined : writtenWeight(value);
  }
  // Without an escape the literal is the text, between its quotes.
  return writtenWeight(text, start + 1, end - 1);
}

/**
 * What the relay reads of a plain chat completion chunk — whether it has choices, and how much
 * text it writes — read from its text without parsing it: most chunks carry a piece of text and
 * no usage, and a JSON.parse of each was the dearest part of relaying them. A plain chunk is an
 * object with one `choices` key, a list, no `error` key, every `usage` null, and its text under
 * `content`, `reasoning_content` or `reasoning` (not both of those two) and `arguments` keys.
 * Anything else is null, and the relay parses the chunk. Key names are matched quoted and followed
 * by a colon, so a name inside a string value (its quotes escaped there) never matches.
 */
export function scanChunk(text: string): ScannedChunk | null {
  if (text.charCodeAt(0) !== OPEN_BRACE) return null;
  let list = -1;
  let written = 0;
  let reasoningContent = false;
  let reasoning = false;
  // One pass over the text (a regular expression of the names, not a search per name: that was
  // four times dearer than a JSON.parse of the chunk, and the scan was to be cheaper).
  NAMES.lastIndex = 0;
  for (let found = NAMES.exec(text); found !== null; found = NAMES.exec(text)) {
    const name = found[1] as (typeof TEXT_NAMES)[number] | 'choices' | 'usage' | 'error';
    if (name === 'error') return null;
    const start = valueAt(text, NAMES.lastIndex);
    if (start < 0) return null;
    if (name === 'usage') {
      if (!text.startsWith('null', start)) return null;
    } else if (name === 'choices') {
      if (list >= 0 || text.charCodeAt(start) !== OPEN_BRACKET) return null;
      list = start;
    } else if (text.charCodeAt(start) === QUOTE) {
      const end = stringEnd(text, start);
      if (end < 0) return null;
      const weight = literalWeight(text, start, end);
      if (weight === undefined) return null;
      written += weight;
      if (name === 'reasoning_content') reasoningContent = true;
      else if (name === 'reasoning') reasoning = true;
      // The string's characters hold no name: the search goes on after it.
      NAMES.lastIndex = end;
    }
    // A text name's value that is no string writes nothing: null, a list (logprobs' content), an object.
  }
  if (list < 0 || (reasoningContent && reasoning)) return null;
  return { hasChoices: text.charCodeAt(skipSpace(text, list + 1)) !== CLOSE_BRACKET, written };
}
