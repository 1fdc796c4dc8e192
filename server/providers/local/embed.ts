/**
 * `local/embed`: feature-hashing embeddings, offline and deterministic. Words and character
 * trigrams are hashed into a fixed number of signed buckets and the vector is L2-normalised, so
 * texts that share words and word pieces get a higher cosine similarity than unrelated ones.
 */
export const LOCAL_EMBED_DIMENSIONS = 384;

/** FNV-1a, 32 bits. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function features(text: string): string[] {
  const words = text.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [];
  const out: string[] = [];
  for (const word of words) {
    out.push(`w:${word}`);
    const padded = `^${word}$`;
    for (let i = 0; i + 3 <= padded.length; i++) out.push(`c:${padded.slice(i, i + 3)}`);
  }
  return out;
}

export function embedText(text: string, dimensions = LOCAL_EMBED_DIMENSIONS): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const feature of features(text)) {
    const hash = fnv1a(feature);
    // Whole words weigh more than pieces of words.
    const weight = feature.startsWith('w:') ? 2 : 1;
    vector[hash % dimensions] = (vector[hash % dimensions] ?? 0) + ((hash >>> 31) === 1 ? -weight : weight);
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < dimensions; i++) vector[i] = (vector[i] as number) / norm;
  return vector;
}

/** Token ids have no text; they are embedded as the words `t<id>`. */
export function tokensToText(tokens: readonly number[]): string {
  return tokens.map((t) => `t${t}`).join(' ');
}
