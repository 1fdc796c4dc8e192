/**
 * Chunking of texts for embedding. Sizes are in UTF-16 code units (JavaScript string length).
 *
 * - A text whose trimmed length is below `minLength` gives no chunk (it is not embedded).
 * - A trimmed text of at most `size` characters is one chunk.
 * - A longer text is cut into chunks of at most `size` characters; each chunk after the first
 *   starts `overlap` characters before the end of the one before it. A cut prefers whitespace
 *   within the last `breakWindow` characters before the limit (the chunk then ends just before
 *   that whitespace) and never falls between the two halves of a surrogate pair.
 */
export const CHUNK_SIZE = 400;
export const CHUNK_OVERLAP = 50;
/** Messages whose trimmed text is shorter than this are not embedded. */
export const MIN_EMBED_LENGTH = 20;
/** How far before the size limit a cut looks for whitespace. */
export const BREAK_WINDOW = 50;

export interface ChunkOptions {
  size?: number;
  overlap?: number;
  minLength?: number;
  breakWindow?: number;
}

export interface Chunk {
  /** Offsets into the trimmed text: `text === trimmed.slice(start, end)`. */
  start: number;
  end: number;
  text: string;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
const isWhitespace = (char: string) => /\s/u.test(char);

/** Moves an offset that falls inside a surrogate pair back to the pair's start. */
function pairSafe(text: string, offset: number): number {
  return offset > 0 && offset < text.length && isLowSurrogate(text.charCodeAt(offset)) && isHighSurrogate(text.charCodeAt(offset - 1))
    ? offset - 1
    : offset;
}

export function chunkText(input: string, options: ChunkOptions = {}): Chunk[] {
  const size = options.size ?? CHUNK_SIZE;
  const overlap = options.overlap ?? CHUNK_OVERLAP;
  const minLength = options.minLength ?? MIN_EMBED_LENGTH;
  const breakWindow = Math.min(options.breakWindow ?? BREAK_WINDOW, size - overlap - 2);
  if (!(size > overlap + 2 && overlap >= 0)) throw new Error('chunk size must exceed the overlap by more than 2');
  const text = input.trim();
  if (text.length === 0 || text.length < minLength) return [];
  const chunks: Chunk[] = [];
  let start = 0;
  for (;;) {
    let end = start + size;
    if (end >= text.length) {
      chunks.push({ start, end: text.length, text: text.slice(start) });
      return chunks;
    }
    for (let cut = end; cut > end - breakWindow; cut--) {
      if (isWhitespace(text.charAt(cut))) {
        end = cut;
        break;
      }
    }
    end = pairSafe(text, end);
    chunks.push({ start, end, text: text.slice(start, end) });
    start = pairSafe(text, end - overlap);
  }
}
