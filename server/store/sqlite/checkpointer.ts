import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './database.js';

/**
 * Checkpoints the write-ahead log from a thread of its own.
 *
 * SQLite's automatic checkpoint runs in the connection that commits: every ~1,000 pages of log,
 * one commit copies the log back into the database file and syncs it. Here that connection is the
 * event loop's, so under load a settlement group now and then stalls every request for
 * milliseconds (the single-connection p99 was ~20 ms), and checkpoints were over half of what a
 * settlement costs (bench: 179 → 77 µs a settlement in groups of 10 without them). A second
 * connection on a worker thread checkpoints instead, PASSIVE (it never blocks the writer nor
 * waits for it); the writer's own automatic checkpoint stays as a backstop at a far larger log,
 * should the worker fall behind or fail. Durability is unchanged: a commit is in the log either
 * way, and a kill at any moment leaves the same database a kill mid-checkpoint always did.
 *
 * The worker starts once the server has committed `startAfterCommits` settlement groups: a
 * thread and a connection cost ~0.2 s to start, which a busy server repays at once, and the many
 * short-lived servers of a test run or a chat's bundled server never need.
 */

/** The writer's own automatic checkpoint once the worker runs: a backstop (pages of log; SQLite's default is 1,000). */
export const BACKSTOP_PAGES = 10_000;
/** How often the worker checkpoints: at a few hundred commits a second, a few thousand pages each time. */
const INTERVAL_MS = 100;

/** One checkpoint as SQLite reports it: log frames in all, and how many are now in the database file. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

// CommonJS, as an evaluated worker runs; it is handed better-sqlite3's resolved path, since an
// evaluated script resolves modules from the working directory, not from this package.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
const checkpoint = () => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    if (workerData.report) parentPort.postMessage({ kind: 'checkpoint', result });
  } catch (error) {
    parentPort.postMessage({ kind: 'failed', message: String(error && error.message || error) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'checkpoint') return checkpoint();
  if (message === 'close') {
    clearInterval(timer);
    db.close();
    parentPort.close();
  }
});
`;

/**
 * A worker checkpointing `file`'s log every `intervalMs` (and at once when asked); `onCheckpoint`
 * hears each one (tests), `onFailure` a failure to open or checkpoint.
 */
export function startCheckpointWorker(
  file: string,
  options: { intervalMs?: number; onCheckpoint?: (result: CheckpointResult) => void; onFailure?: (message: string) => void } = {},
) {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driver, file, intervalMs: options.intervalMs ?? INTERVAL_MS, report: options.onCheckpoint !== undefined },
  });
  // A server's exit never waits for its checkpointer.
  worker.unref();
  worker.on('message', (message: { kind: 'checkpoint'; result: CheckpointResult } | { kind: 'failed'; message: string }) => {
    if (message.kind === 'checkpoint') options.onCheckpoint?.(message.result);
    else options.onFailure?.(message.message);
  });
  worker.on('error', (error) => options.onFailure?.(error.message));
  let exited = false;
  const exit = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  void exit.then(() => {
    exited = true;
  });
  return {
    checkpointNow: () => worker.postMessage('checkpoint'),
    /** Closes its connection and ends the thread (a checkpoint under way finishes first). */
    async close() {
      if (exited) return;
      worker.postMessage('close');
      await exit;
    },
  };
}

/**
 * The store's checkpointing: the writer's own until `startAfterCommits` groups are committed,
 * then a worker's (above), the writer's kept as a backstop. A worker that fails hands the log
 * back to the writer's automatic checkpoint.
 */
export function createCheckpointing(db: Db, file: string, options: { startAfterCommits: number; log?: (line: string) => void }) {
  const defaultPages = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  let commits = 0;
  let worker: ReturnType<typeof startCheckpointWorker> | null = null;
  let failed = false;
  const fail = (message: string) => {
    if (failed) return;
    failed = true;
    options.log?.(`SQLite: the background checkpoint failed (${message}); the writer checkpoints again`);
    if (db.open) db.pragma(`wal_autocheckpoint = ${defaultPages}`);
    void worker?.close();
  };
  const start = () => {
    // Called after a commit, on the metered path: a worker that cannot even start is a log line, never a throw.
    try {
      worker = startCheckpointWorker(file, { onFailure: fail });
      db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    } catch (error) {
      fail(error instanceof Error ? error.message : String(error));
    }
  };
  return {
    /** A settlement group was committed. */
    committed() {
      if (worker !== null || failed || file === ':memory:' || file === '') return;
      if (++commits >= options.startAfterCommits) start();
    },
    /** Whether the worker runs (tests). */
    get running() {
      return worker !== null && !failed;
    },
    async close() {
      await worker?.close();
    },
  };
}
