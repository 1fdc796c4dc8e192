/**
 * Where the vectors of a VectorIndex live and how a query is scored against all of them.
 *
 * The fast path keeps the vectors in WebAssembly memory and scores them with a 20-instruction
 * SIMD loop (f32x4 multiply-add, four lanes at a time): a scan of 100,000 × 384 floats is bound by
 * memory bandwidth rather than by JavaScript arithmetic. It is used when the runtime has wasm SIMD
 * and the dimension count is a multiple of 4 (384, 768, 1536, … are); otherwise the same layout
 * lives in a plain Float32Array and is scored in JavaScript.
 */
export interface Scorer {
  /** `capacity × dims` floats, row after row. */
  readonly vectors: Float32Array;
  /** Where the query goes before `score`. */
  readonly query: Float32Array;
  /** `score(count)` fills `scores[0 … count)` with the dot products of the first rows and the query. */
  readonly scores: Float32Array;
  score(count: number): void;
  /** Makes room for `capacity` rows, keeping the rows stored so far. */
  resize(capacity: number): void;
}

/** The part of the WebAssembly global used here (the project's `lib` settings do not declare it). */
interface WasmModule {
  readonly kind?: 'module';
}
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
declare const WebAssembly: {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => WasmModule;
  Memory: new (descriptor: { initial: number }) => WasmMemory;
  Instance: new (module: WasmModule, imports: object) => { exports: Record<string, unknown> };
};

const PAGE = 65_536;

/** LEB128 of an unsigned integer. */
function uleb(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const name = (text: string) => [...uleb(text.length), ...Buffer.from(text, 'latin1')];

/**
 * `scores(vec, query, dims, rows, out)`, byte offsets into the imported memory: for each of
 * `rows` rows of `dims` floats from `vec`, stores the row · query as an f32 at `out`, one after
 * another. Locals: 0 vec, 1 query, 2 dims, 3 rows, 4 out, 5 end of row, 6 query cursor, 7 end of out, 8 accumulator.
 */
function scoresModule(): Uint8Array {
  const [get, set, tee, i32c] = [0x20, 0x21, 0x22, 0x41];
  const [block, loop, end, brIf, empty] = [0x02, 0x03, 0x0b, 0x0d, 0x40];
  const [i32add, i32shl, i32ltu, i32eqz, f32add, f32store] = [0x6a, 0x74, 0x49, 0x45, 0x92, 0x38];
  const simd = (op: number, ...rest: number[]) => [0xfd, ...uleb(op), ...rest];
  const v128load = simd(0x00, 2, 0); // align 2^2, offset 0
  const v128zero = simd(0x0c, ...new Array<number>(16).fill(0));
  const [f32x4add, f32x4mul] = [simd(0xe4), simd(0xe6)];
  const lane = (n: number) => [get, 8, ...simd(0x1f, n)];
  const code = [
    ...[get, 4, get, 3, i32c, 2, i32shl, i32add, set, 7], // end of out = out + rows * 4
    ...[block, empty, get, 3, i32eqz, brIf, 0],
    ...[loop, empty],
    ...[get, 0, get, 2, i32c, 2, i32shl, i32add, set, 5], // end of row = vec + dims * 4
    ...[get, 1, set, 6, ...v128zero, set, 8],
    ...[loop, empty],
    ...[get, 8, get, 0, ...v128load, get, 6, ...v128load, ...f32x4mul, ...f32x4add, set, 8],
    ...[get, 0, i32c, 16, i32add, set, 0, get, 6, i32c, 16, i32add, set, 6],
    ...[get, 0, get, 5, i32ltu, brIf, 0, end],
    ...[get, 4, ...lane(0), ...lane(1), f32add, ...lane(2), f32add, ...lane(3), f32add, f32store, 2, 0],
    ...[get, 4, i32c, 4, i32add, tee, 4, get, 7, i32ltu, brIf, 0, end],
    ...[end, end],
  ];
  const body = [2, 3, 0x7f, 1, 0x7b, ...code]; // locals: 3 × i32, 1 × v128
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 5, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]),
    ...section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name('scores'), 0x00, 0]),
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
}

let compiled: WasmModule | null | undefined;

/** The compiled SIMD module, or null where the runtime cannot run it. */
function simdModule(): WasmModule | null {
  if (compiled === undefined) {
    const bytes = scoresModule();
    compiled = WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
  }
  return compiled;
}

export const simdAvailable = () => simdModule() !== null;

/** Vectors in WebAssembly memory: [vectors: capacity × dims][query: dims][scores: capacity]. */
function wasmScorer(dims: number, capacity: number, module: WasmModule): Scorer {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const instance = new WebAssembly.Instance(module, { env: { memory } });
  const run = instance.exports.scores as (vec: number, query: number, dims: number, rows: number, out: number) => void;
  const scorer = {
    vectors: new Float32Array(0),
    query: new Float32Array(0),
    scores: new Float32Array(0),
    score(count: number) {
      run(0, scorer.query.byteOffset, dims, count, scorer.scores.byteOffset);
    },
    resize(next: number) {
      const bytes = (next * dims + dims + next) * 4;
      // Growing keeps the bytes in place (the rows stay at offset 0) but detaches the old views.
      if (bytes > memory.buffer.byteLength) memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE));
      scorer.vectors = new Float32Array(memory.buffer, 0, next * dims);
      scorer.query = new Float32Array(memory.buffer, next * dims * 4, dims);
      scorer.scores = new Float32Array(memory.buffer, (next * dims + dims) * 4, next);
    },
  };
  scorer.resize(capacity);
  return scorer;
}

/** Vectors in a plain Float32Array, scored in JavaScript, four rows at a time. */
function jsScorer(dims: number, capacity: number): Scorer {
  const scorer = {
    vectors: new Float32Array(capacity * dims),
    query: new Float32Array(dims),
    scores: new Float32Array(capacity),
    score(count: number) {
      const { vectors, query, scores } = scorer;
      let row = 0;
      for (; row + 4 <= count; row += 4) {
        const a = row * dims;
        const b = a + dims;
        const c = b + dims;
        const d = c + dims;
        let sa = 0;
        let sb = 0;
        let sc = 0;
        let sd = 0;
        for (let j = 0; j < dims; j++) {
          const q = query[j] as number;
          sa += (vectors[a + j] as number) * q;
          sb += (vectors[b + j] as number) * q;
          sc += (vectors[c + j] as number) * q;
          sd += (vectors[d + j] as number) * q;
        }
        scores[row] = sa;
        scores[row + 1] = sb;
        scores[row + 2] = sc;
        scores[row + 3] = sd;
      }
      for (; row < count; row++) {
        let sum = 0;
        for (let j = 0; j < dims; j++) sum += (vectors[row * dims + j] as number) * (query[j] as number);
        scores[row] = sum;
      }
    },
    resize(next: number) {
      const vectors = new Float32Array(next * dims);
      vectors.set(scorer.vectors.subarray(0, Math.min(scorer.vectors.length, vectors.length)));
      scorer.vectors = vectors;
      scorer.scores = new Float32Array(next);
    },
  };
  return scorer;
}

/** The fastest scorer this runtime has for `dims`; `simd: false` forces the JavaScript one. */
export function createScorer(dims: number, capacity: number, options: { simd?: boolean } = {}): Scorer {
  const module = options.simd === false || dims % 4 !== 0 ? null : simdModule();
  return module ? wasmScorer(dims, capacity, module) : jsScorer(dims, capacity);
}
