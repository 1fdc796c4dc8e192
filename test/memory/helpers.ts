import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { openMemory, type EmbedFunction, type Memory, type MemoryOptions } from '../../src/memory/index.js';

const STOPWORDS = new Set(['a', 'an', 'and', 'the', 'of', 'to', 'in', 'on', 'for', 'is', 'my', 'i', 'it', 'was', 'with', 'what', 'do', 'you']);

/** FNV-1a, 32 bits. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * A deterministic bag-of-words embedder: each word (lower case, stopwords dropped) adds 1 to a
 * hashed bucket. The model name salts the hash and a `…-<n>d` suffix sets the dimensions, so
 * two models give unrelated vector spaces (of different sizes when asked).
 */
export function bagOfWords(text: string, model: string): number[] {
  const dims = Number(/-(\d+)d$/.exec(model)?.[1] ?? 256);
  const vector = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (STOPWORDS.has(word)) continue;
    const bucket = hash(`${model}:${word}`) % dims;
    vector[bucket] = (vector[bucket] as number) + 1;
  }
  return vector;
}

export interface RecordingEmbedder {
  embed: EmbedFunction;
  calls: { texts: string[]; model: string }[];
  /** Texts embedded (queries included), in order. */
  texts(model?: string): string[];
}

export function recordingEmbedder(): RecordingEmbedder {
  const calls: { texts: string[]; model: string }[] = [];
  return {
    calls,
    embed: async (texts, model) => {
      calls.push({ texts: [...texts], model });
      return texts.map((text) => bagOfWords(text, model));
    },
    texts: (model) => calls.filter((call) => model === undefined || call.model === model).flatMap((call) => call.texts),
  };
}

/** A clock that moves only when told. */
export function manualClock(start = '2026-03-01T12:00:00.000Z') {
  let time = Date.parse(start);
  return {
    now: () => new Date(time),
    advance(ms = 1000) {
      time += ms;
    },
  };
}

export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A fresh temporary directory per test, removed afterwards (with every memory opened in it closed). */
export function useMemoryFiles() {
  const opened: Memory[] = [];
  let dir: string | null = null;
  afterEach(() => {
    for (const memory of opened.splice(0)) memory.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });
  const file = () => {
    dir ??= mkdtempSync(join(tmpdir(), 'svc-memory-'));
    return join(dir, 'memory.db');
  };
  return {
    file,
    /** Opens the test's memory file with the fake embedder, a manual clock and `fake-embed` as model. */
    open(options: Partial<MemoryOptions> = {}) {
      const embedder = recordingEmbedder();
      const clock = manualClock();
      const memory = openMemory({ file: file(), embed: embedder.embed, embeddingModel: 'fake-embed', now: clock.now, ...options });
      opened.push(memory);
      return { memory, embedder, clock };
    },
  };
}
