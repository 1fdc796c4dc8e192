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
const COLON = 0x3a;

/** Where the value of the key that ends just before `from` begins, or -1 when no colon follows (it is no key). */
function valueAt(text: string, from: number): number {
  const colon = skipSpace(text, from);
  return text.charCodeAt(colon) === COLON ? skipSpace(text, colon + 1) : -1;
}

/** The total `writtenWeight` of the string values of `key` (quoted) and how many there are; null where one cannot be read. */
function stringValues(text: string, key: string): { count: number; weight: number } | null {
  let count = 0;
  let weight = 0;
  for (let at = text.indexOf(key); at >= 0; at = text.indexOf(key, at + key.length)) {
    const start = valueAt(text, at + key.length);
    if (start < 0) return null;
    // null, a list (logprobs' content), an object: no text written.
    if (text.charCodeAt(start) !== QUOTE) continue;
    const end = stringEnd(text, start);
    if (end < 0) return null;
    const literal = text.slice(start, end);
    const value = literal.includes('\\') ? decoded(literal) : undefined;
    if (literal.includes('\\') && value === undefined) return null;
    count++;
    // Without an escape the literal is the text, between its quotes.
    weight += value === undefined ? writtenWeight(text, start + 1, end - 1) : writtenWeight(value);
  }
  return { count, weight };
}

/** Whether every `"usage"` key has the value null. */
function usageOnlyNull(text: string): boolean {
  for (let at = text.indexOf('"usage"'); at >= 0; at = text.indexOf('"usage"', at + 7)) {
    const start = valueAt(text, at + 7);
    if (start < 0 || !text.startsWith('null', start)) return false;
  }
  return true;
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
  if (text.charCodeAt(0) !== OPEN_BRACE || text.includes('"error"') || !usageOnlyNull(text)) return null;
  const choices = text.indexOf('"choices"');
  if (choices < 0 || text.indexOf('"choices"', choices + 9) >= 0) return null;
  const list = valueAt(text, choices + 9);
  if (list < 0 || text.charCodeAt(list) !== OPEN_BRACKET) return null;
  const content = stringValues(text, '"content"');
  const reasoningContent = stringValues(text, '"reasoning_content"');
  const reasoning = stringValues(text, '"reasoning"');
  const args = stringValues(text, '"arguments"');
  if (!content || !reasoningContent || !reasoning || !args || (reasoningContent.count > 0 && reasoning.count > 0)) return null;
  return {
    hasChoices: text.charCodeAt(skipSpace(text, list + 1)) !== CLOSE_BRACKET,
    written: content.weight + reasoningContent.weight + reasoning.weight + args.weight,
  };
}
