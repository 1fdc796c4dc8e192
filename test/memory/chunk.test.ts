import { describe, expect, it } from 'vitest';
import { CHUNK_OVERLAP, CHUNK_SIZE, MIN_EMBED_LENGTH, chunkText, type Chunk } from '../../src/memory/index.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const spans = (chunks: Chunk[]) => chunks.map((chunk) => [chunk.start, chunk.end]);

/** What holds for every chunking of a long text. */
function expectWellFormed(text: string, chunks: Chunk[]): void {
  expect(chunks[0]?.start).toBe(0);
  expect(chunks.at(-1)?.end).toBe(text.length);
  chunks.forEach((chunk, i) => {
    expect(chunk.text).toBe(text.slice(chunk.start, chunk.end));
    expect(chunk.text.length).toBeLessThanOrEqual(CHUNK_SIZE);
    expect(chunk.text).not.toMatch(LONE_SURROGATE);
    const previous = chunks[i - 1];
    if (previous) expect(previous.end - chunk.start).toBeGreaterThanOrEqual(CHUNK_OVERLAP);
    if (previous) expect(previous.end - chunk.start).toBeLessThanOrEqual(CHUNK_OVERLAP + 1);
  });
}

describe('chunkText', () => {
  it('uses 400 characters with a 50-character overlap and a minimum of 20', () => {
    expect([CHUNK_SIZE, CHUNK_OVERLAP, MIN_EMBED_LENGTH]).toEqual([400, 50, 20]);
  });

  it('keeps a text of up to 400 characters whole', () => {
    expect(spans(chunkText('a'.repeat(400)))).toEqual([[0, 400]]);
  });

  it('cuts a text without whitespace every 400 characters, each chunk overlapping the one before by 50', () => {
    expect(spans(chunkText('a'.repeat(401)))).toEqual([
      [0, 400],
      [350, 401],
    ]);
    const text = Array.from({ length: 1000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    const chunks = chunkText(text);
    expect(spans(chunks)).toEqual([
      [0, 400],
      [350, 750],
      [700, 1000],
    ]);
    expect(chunks[1]?.text.slice(0, 50)).toBe(chunks[0]?.text.slice(-50));
    expectWellFormed(text, chunks);
  });

  it('prefers whitespace within the last 50 characters before the limit', () => {
    // a space at 380: the first chunk ends just before it, the next starts 50 earlier
    expect(spans(chunkText(`${'a'.repeat(380)} ${'b'.repeat(300)}`))).toEqual([
      [0, 380],
      [330, 681],
    ]);
    // a space right at the limit: the first chunk is exactly 400
    expect(spans(chunkText(`${'a'.repeat(400)} ${'b'.repeat(100)}`))[0]).toEqual([0, 400]);
    // a space too far back (at 300) is not used: a hard cut at 400
    expect(spans(chunkText(`${'a'.repeat(300)} ${'b'.repeat(500)}`))[0]).toEqual([0, 400]);
  });

  it('cuts prose at word boundaries', () => {
    const text = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const chunks = chunkText(text);
    expect(chunks.length).toBeGreaterThan(3);
    expectWellFormed(text, chunks);
    for (const chunk of chunks.slice(0, -1)) {
      expect(text.charAt(chunk.end)).toBe(' ');
      expect(chunk.text.length).toBeGreaterThan(CHUNK_SIZE - 50);
    }
  });

  it('does not embed messages whose trimmed text is under 20 characters', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText('ok, thanks!')).toEqual([]);
    expect(chunkText(`   ${'x'.repeat(19)}   \n`)).toEqual([]);
    expect(chunkText(`  ${'x'.repeat(20)}  `)).toEqual([{ start: 0, end: 20, text: 'x'.repeat(20) }]);
    expect(chunkText('hi', { minLength: 1 })).toHaveLength(1);
  });

  it('never ends a chunk inside a surrogate pair', () => {
    // 'x' then emoji: offset 400 is the second half of an emoji, so the cut moves to 399
    const text = `x${'😀'.repeat(300)}`;
    const chunks = chunkText(text);
    expect(chunks[0]?.end).toBe(399);
    expect(chunks[1]?.start).toBe(349);
    expectWellFormed(text, chunks);
  });

  it('never starts a chunk inside a surrogate pair', () => {
    // emoji up to 361, so the cut at 400 is clean but 400 - 50 = 350 is the second half of an emoji
    const text = `x${'😀'.repeat(180)}${'y'.repeat(400)}`;
    const chunks = chunkText(text);
    expect(chunks[0]?.end).toBe(400);
    expect(chunks[1]?.start).toBe(349);
    expectWellFormed(text, chunks);
  });

  it('keeps mixed scripts, emoji and whitespace well formed', () => {
    const pieces = ['猫', 'が', '好き', '🐈‍⬛', 'naïve', 'café', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', ' ', '\n', '\u3000', 'Ω'];
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 0x7fffffff) / 0x7fffffff;
    for (let round = 0; round < 20; round++) {
      const text = Array.from({ length: 400 + round * 40 }, () => pieces[Math.floor(random() * pieces.length)]).join('').trim();
      expectWellFormed(text, chunkText(text));
    }
  });
});
