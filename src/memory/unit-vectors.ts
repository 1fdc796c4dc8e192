import { normalize } from './vector-index.js';

/** Checks what an embedding call gave back and turns it into unit vectors. */
export function unitVectors(vectors: unknown, count: number, model: string): Float32Array[] {
  if (!Array.isArray(vectors) || vectors.length !== count) {
    throw new Error(`embedding model ${model} gave ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${count} texts`);
  }
  const dims = Array.isArray(vectors[0]) ? vectors[0].length : 0;
  return Array.from(vectors, (vector: unknown) => {
    if (!Array.isArray(vector) || vector.length === 0 || !vector.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new Error(`embedding model ${model} gave something other than a vector of numbers`);
    }
    if (vector.length !== dims) throw new Error(`embedding model ${model} gave vectors of different lengths in one answer`);
    return normalize(Float32Array.from(vector as number[]));
  });
}
