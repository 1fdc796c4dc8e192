import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { bulkInsertEmbedded, type BulkMessage } from '../../src/memory/bulk.js';
import { openMemory, type MessageSearchOptions } from '../../src/memory/index.js';
import { formatMs, median, percentile } from './lib/stats.js';
import { printTable } from './lib/table.js';

const CHUNKS = 100_000;
const DIMS = 384;
const CHUNKS_PER_MESSAGE = 4;
const MESSAGES_PER_CONVERSATION = 25;
const RUNS = 50;
const WARMUP = 5;
const TARGET_MS = 50;
const MODEL = 'bench/random-384';

/** A seeded generator, so every run searches the same data. */
function lcg(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 48271) % 0x7fffffff) / 0x7fffffff;
}

function randomVector(random: () => number): Float32Array {
  return Float32Array.from({ length: DIMS }, () => random() * 2 - 1);
}

/**
 * Search speed of client memory (issue: client-side memory): 100,000 random chunks of 384
 * dimensions in a temporary file, searched for the top 8 through `memory.searchMessages`.
 * Target: ≤ 50 ms median.
 */
export async function memorySearch(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-memory-'));
  const file = join(dir, 'memory.db');
  const random = lcg(20_260_301);
  try {
    const conversations: BulkMessage[][] = [];
    for (let chunk = 0; chunk < CHUNKS; ) {
      const messages: BulkMessage[] = [];
      for (let m = 0; m < MESSAGES_PER_CONVERSATION && chunk < CHUNKS; m++, chunk += CHUNKS_PER_MESSAGE) {
        const vectors = Array.from({ length: Math.min(CHUNKS_PER_MESSAGE, CHUNKS - chunk) }, () => randomVector(random));
        messages.push({ role: 'user', content: `benchmark message ${chunk / CHUNKS_PER_MESSAGE}`, vectors });
      }
      conversations.push(messages);
    }
    let started = performance.now();
    bulkInsertEmbedded(file, MODEL, conversations);
    const insertMs = performance.now() - started;

    const memory = openMemory({
      file,
      embeddingModel: MODEL,
      embedInBackground: false,
      embed: async (texts) => texts.map(() => Array.from(randomVector(random))),
    });
    try {
      started = performance.now();
      const first = await memory.searchMessages('first search loads the vectors', { minSimilarity: 0 });
      const firstMs = performance.now() - started;
      if (first.length !== 8) throw new Error(`expected 8 hits, got ${first.length}`);

      const cases: [string, MessageSearchOptions][] = [
        ['defaults (minSimilarity 0.3)', {}],
        ['minSimilarity 0 (8 hits)', { minSimilarity: 0 }],
        ['minSimilarity 0, chronological', { minSimilarity: 0, sortBy: 'chronological' }],
      ];
      const samples = new Map<string, number[]>(cases.map(([name]) => [name, []]));
      for (let i = 0; i < WARMUP + RUNS; i++) {
        for (const [name, options] of cases) {
          started = performance.now();
          await memory.searchMessages(`query ${i}`, options);
          if (i >= WARMUP) samples.get(name)?.push(performance.now() - started);
        }
      }
      printTable(
        `Memory search: ${CHUNKS.toLocaleString('en')} chunks × ${DIMS} dims, top 8, ${RUNS} searches after ${WARMUP} warm-up ` +
          `(target: ≤ ${TARGET_MS} ms median)`,
        ['case', 'median', 'p90', 'target met'],
        [
          ...cases.map(([name]) => {
            const values = samples.get(name) ?? [];
            return [name, formatMs(median(values)), formatMs(percentile(values, 90)), median(values) <= TARGET_MS ? 'yes' : 'NO'];
          }),
          ['first search (loads the vectors)', formatMs(firstMs), '', ''],
          ['bulk insert of the chunks', formatMs(insertMs), '', ''],
        ],
      );
    } finally {
      memory.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
