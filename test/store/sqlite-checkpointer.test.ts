import Database from 'better-sqlite3';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BACKSTOP_PAGES, createCheckpointing, startCheckpointWorker, type CheckpointResult } from '../../server/store/sqlite/checkpointer.js';
import { createSqliteStore } from '../../server/store/sqlite/index.js';
import type { Payer } from '../../server/store/types.js';
import { credits, newDeveloper, usageRow } from '../helpers/stores.js';

/**
 * The write-ahead log checkpointed by a worker thread's connection, not by the writer's commits
 * (server/store/sqlite/checkpointer.ts).
 */
describe('SQLite checkpoints on a worker thread', () => {
  let dir = '';
  let file = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-checkpoint-'));
    file = join(dir, 'svc.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('copies the log into the database file while the writer never checkpoints', async () => {
    const writer = new Database(file);
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT)');
    const insert = writer.prepare('INSERT INTO rows (body) VALUES (?)');
    for (let i = 0; i < 500; i++) insert.run('x'.repeat(500));
    const results: CheckpointResult[] = [];
    // A long interval: the checkpoint the test asks for is the one that runs.
    const worker = startCheckpointWorker(file, { intervalMs: 60_000, onCheckpoint: (result) => results.push(result) });
    try {
      worker.checkpointNow();
      await vi.waitFor(() => expect(results.some((r) => r.log > 0 && r.checkpointed === r.log)).toBe(true), { timeout: 15_000, interval: 20 });
      // The database file alone, without its log, holds every row: the worker wrote them there.
      const alone = join(dir, 'alone.db');
      copyFileSync(file, alone);
      const copy = new Database(alone, { readonly: true });
      expect(copy.prepare('SELECT COUNT(*) AS n FROM rows').get()).toEqual({ n: 500 });
      copy.close();
    } finally {
      await worker.close();
      writer.close();
    }
  });

  it('takes over after the given number of commits, leaving the writer a backstop, and ends with the store', async () => {
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    const checkpointing = createCheckpointing(db, file, { startAfterCommits: 3 });
    checkpointing.committed();
    checkpointing.committed();
    expect(checkpointing.running).toBe(false);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    checkpointing.committed();
    expect(checkpointing.running).toBe(true);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_PAGES);
    await checkpointing.close();
    db.close();
  });

  it('a worker that fails hands the checkpoints back to the writer, and says so once', async () => {
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    const lines: string[] = [];
    // The worker opens a file that cannot exist: it fails as it starts.
    const checkpointing = createCheckpointing(db, join(dir, 'missing', 'svc.db'), { startAfterCommits: 1, log: (line) => lines.push(line) });
    checkpointing.committed();
    await vi.waitFor(() => expect(checkpointing.running).toBe(false), { timeout: 15_000, interval: 20 });
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(lines).toEqual([expect.stringMatching(/^SQLite: the background checkpoint failed \(.+\); the writer checkpoints again$/)]);
    checkpointing.committed();
    expect(checkpointing.running).toBe(false);
    await checkpointing.close();
    db.close();
  });

  it('a store whose worker has taken over settles, closes, and keeps every settlement', async () => {
    const store = createSqliteStore(file, { checkpointInBackgroundAfter: 1 });
    const app = await (await newDeveloper(store)).newApp(100);
    const payer: Payer = { kind: 'app', appUuid: app.appUuid };
    for (let group = 0; group < 20; group++) {
      const ids = [0, 1, 2].map((i) => `req-${group}-${i}`);
      for (const id of ids) expect((await store.metering.hold(payer, credits(1), id)).ok).toBe(true);
      await Promise.all(ids.map((id) => store.metering.settle(payer, credits(1), credits(0.5), usageRow(app.appUuid, id, { costMicro: credits(0.5) }))));
    }
    await store.close();
    const reopened = createSqliteStore(file);
    try {
      expect(await reopened.metering.balance(payer)).toEqual({ balanceMicro: credits(70), heldMicro: 0 });
      expect(await reopened.credits.check()).toEqual([]);
    } finally {
      await reopened.close();
    }
  });
});
