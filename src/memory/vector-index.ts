import { createScorer, type Scorer } from './scorer.js';

/**
 * In-memory vectors of one embedding model: one contiguous Float32Array of unit vectors (in
 * WebAssembly memory where it can be scored with SIMD, see scorer.ts), with per-row owner (a
 * message or vault entry) and tag (a small integer the caller filters on). Search is a dot
 * product per row (cosine, since rows are unit vectors) and a top-k selection with a small
 * min-heap in which each owner appears at most once, with the score of its best row.
 */

/** Scales a vector to unit length in place (a zero vector stays zero); returns it. */
export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += (vector[i] as number) * (vector[i] as number);
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) / norm;
  return vector;
}

export interface ScoredOwner {
  owner: number;
  score: number;
}

export class VectorIndex {
  count = 0;
  private readonly scorer: Scorer;
  private owners: Float64Array;
  private tags: Int32Array;

  constructor(
    readonly dims: number,
    capacity = 1024,
    options: { simd?: boolean } = {},
  ) {
    this.scorer = createScorer(dims, capacity, options);
    this.owners = new Float64Array(capacity);
    this.tags = new Int32Array(capacity);
  }

  /** Adds a unit vector (`dims` long, or its float32 bytes as stored) for an owner. */
  add(owner: number, tag: number, vector: Float32Array | Uint8Array): void {
    const length = vector instanceof Float32Array ? vector.length : vector.byteLength / 4;
    if (length !== this.dims) throw new Error(`expected a vector of ${this.dims} dimensions, got ${length}`);
    if (this.count === this.owners.length) this.grow(this.count * 2);
    const { vectors } = this.scorer;
    if (vector instanceof Float32Array) vectors.set(vector, this.count * this.dims);
    else new Uint8Array(vectors.buffer, vectors.byteOffset + this.count * this.dims * 4, vector.byteLength).set(vector);
    this.owners[this.count] = owner;
    this.tags[this.count] = tag;
    this.count++;
  }

  /**
   * The `k` owners whose best row scores highest against a unit `query`, best first; only rows
   * with a score of at least `minScore` whose tag `accept`s count.
   */
  top(query: Float32Array, k: number, minScore: number, accept: (tag: number) => boolean): ScoredOwner[] {
    if (query.length !== this.dims) throw new Error(`expected a query of ${this.dims} dimensions, got ${query.length}`);
    const heap = new OwnerHeap(k);
    this.scorer.query.set(query);
    this.scorer.score(this.count);
    const { owners, tags } = this;
    const { scores } = this.scorer;
    for (let row = 0; row < this.count; row++) {
      const score = scores[row] as number;
      if (score < minScore || score <= heap.floor()) continue;
      if (accept(tags[row] as number)) heap.offer(owners[row] as number, score);
    }
    return heap.sorted();
  }

  private grow(capacity: number): void {
    this.scorer.resize(capacity);
    const owners = new Float64Array(capacity);
    owners.set(this.owners);
    this.owners = owners;
    const tags = new Int32Array(capacity);
    tags.set(this.tags);
    this.tags = tags;
  }
}

/** A min-heap of at most `k` owners by score, each owner once with its best score. */
class OwnerHeap {
  private readonly scores: number[] = [];
  private readonly owners: number[] = [];
  private readonly position = new Map<number, number>();

  constructor(private readonly k: number) {}

  /** The score a newcomer must beat: the weakest kept one once full, otherwise -∞. */
  floor(): number {
    return this.scores.length < this.k ? Number.NEGATIVE_INFINITY : (this.scores[0] as number);
  }

  offer(owner: number, score: number): void {
    if (this.k <= 0) return;
    const at = this.position.get(owner);
    if (at !== undefined) {
      if (score > (this.scores[at] as number)) {
        this.scores[at] = score;
        this.down(at);
      }
      return;
    }
    if (this.scores.length < this.k) {
      this.scores.push(score);
      this.owners.push(owner);
      this.position.set(owner, this.scores.length - 1);
      this.up(this.scores.length - 1);
      return;
    }
    this.position.delete(this.owners[0] as number);
    this.scores[0] = score;
    this.owners[0] = owner;
    this.position.set(owner, 0);
    this.down(0);
  }

  sorted(): ScoredOwner[] {
    return this.owners.map((owner, i) => ({ owner, score: this.scores[i] as number })).sort((a, b) => b.score - a.score);
  }

  private swap(a: number, b: number): void {
    const [sa, sb, oa, ob] = [this.scores[a] as number, this.scores[b] as number, this.owners[a] as number, this.owners[b] as number];
    this.scores[a] = sb;
    this.scores[b] = sa;
    this.owners[a] = ob;
    this.owners[b] = oa;
    this.position.set(ob, a);
    this.position.set(oa, b);
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((this.scores[parent] as number) <= (this.scores[i] as number)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < this.scores.length && (this.scores[left] as number) < (this.scores[least] as number)) least = left;
      if (right < this.scores.length && (this.scores[right] as number) < (this.scores[least] as number)) least = right;
      if (least === i) return;
      this.swap(i, least);
      i = least;
    }
  }
}
