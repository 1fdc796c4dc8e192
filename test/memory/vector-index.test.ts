import { describe, expect, it } from 'vitest';
import { simdAvailable } from '../../src/memory/scorer.js';
import { VectorIndex, normalize } from '../../src/memory/vector-index.js';

function randomUnit(dims: number, random: () => number): Float32Array {
  return normalize(Float32Array.from({ length: dims }, () => random() * 2 - 1));
}

function lcg(seed: number) {
  return () => (seed = (seed * 48271) % 0x7fffffff) / 0x7fffffff;
}

describe('VectorIndex', () => {
  it('normalises to unit length and leaves a zero vector alone', () => {
    const v = normalize(Float32Array.from([3, 4]));
    expect(Array.from(v)).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    expect(Array.from(normalize(new Float32Array(3)))).toEqual([0, 0, 0]);
  });

  it.each([
    ['WebAssembly SIMD', 32, true],
    ['JavaScript', 32, false],
    ['JavaScript (dimensions not a multiple of 4)', 19, true],
  ])('finds the same top owners as a brute-force scan, each owner once with its best row (%s)', (_, dims, simd) => {
    const random = lcg(42);
    const index = new VectorIndex(dims, 4, { simd }); // small capacity: it grows
    const rows: { owner: number; tag: number; vector: Float32Array }[] = [];
    for (let i = 0; i < 2000; i++) {
      const row = { owner: Math.floor(random() * 500), tag: Math.floor(random() * 3), vector: randomUnit(dims, random) };
      rows.push(row);
      index.add(row.owner, row.tag, row.vector);
    }
    for (let q = 0; q < 20; q++) {
      const query = randomUnit(dims, random);
      const k = 1 + (q % 12);
      const minScore = q % 2 === 0 ? -1 : 0.2;
      const accept = (tag: number) => tag !== 1;
      const best = new Map<number, number>();
      for (const row of rows) {
        if (!accept(row.tag)) continue;
        const score = row.vector.reduce((sum, x, j) => sum + x * (query[j] as number), 0);
        if (score >= minScore && score > (best.get(row.owner) ?? Number.NEGATIVE_INFINITY)) best.set(row.owner, score);
      }
      const expected = [...best.entries()].sort((a, b) => b[1] - a[1]).slice(0, k);
      const actual = index.top(query, k, minScore, accept);
      expect(actual.map((hit) => hit.owner)).toEqual(expected.map(([owner]) => owner));
      actual.forEach((hit, i) => expect(hit.score).toBeCloseTo(expected[i]?.[1] as number, 5));
    }
  });

  it('has WebAssembly SIMD on this runtime', () => {
    expect(simdAvailable()).toBe(true);
  });

  it('checks dimensions', () => {
    const index = new VectorIndex(2);
    index.add(1, 0, normalize(Float32Array.from([1, 0])));
    index.add(2, 0, new Uint8Array(normalize(Float32Array.from([1, 0.1])).buffer)); // as stored
    expect(index.top(Float32Array.from([1, 0]), 5, 0, () => true).map((hit) => hit.owner)).toEqual([1, 2]);
    expect(() => index.add(3, 0, new Float32Array(3))).toThrow('expected a vector of 2 dimensions');
    expect(() => index.top(new Float32Array(3), 5, 0, () => true)).toThrow('expected a query of 2 dimensions');
  });
});
