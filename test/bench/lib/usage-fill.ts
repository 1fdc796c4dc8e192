import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { backfillUsageRollupsSql } from '../../../server/store/usage-backfill.js';
import { USAGE_ROLLUPS } from '../../../server/store/usage-rollups.js';
import { prepareUsageInsert } from '../../../server/store/sqlite/usage-rows.js';
import type { UsageEvent } from '../../../server/store/types.js';

const DAY = 86_400_000;
const ROLLUP_TABLES = USAGE_ROLLUPS.map((rollup) => rollup.table);

/** A small deterministic generator (mulberry32): the same database every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface FilledUsage {
  /** The owner's app (the one the bench's key belongs to). */
  appUuid: string;
  /** Usage rows written for it, and their time span. */
  appRows: number;
  first: string;
  last: string;
  /** Seconds the bulk insert and the rollup backfill took. */
  insertSeconds: number;
  backfillSeconds: number;
  /** Rows of each rollup table. */
  rollupRows: Record<string, number>;
}

/**
 * Writes `rows` usage rows straight into a stopped server's SQLite file, spread evenly over the 30
 * days before `now` (so the reports' default window covers them all): half for the owner's app
 * (two fifths by its keys, the rest by 200 users), half for nine other apps; four models; a few
 * refusals and errors; half of each input read from the prompt cache. Then builds the rollups the
 * way migration 23 does (its backfill statement), every row in them.
 */
export function fillUsage(file: string, rows: number, now: number): FilledUsage {
  const db = new Database(file);
  try {
    const owner = db.prepare<[], { app_uuid: string }>('SELECT app_uuid FROM apps ORDER BY created_at LIMIT 1').get();
    if (!owner) throw new Error(`no app in ${file}: start svc on it once first`);
    const keys = db.prepare<[string], { key_id: string }>('SELECT key_id FROM api_keys WHERE app_uuid = ?').all(owner.app_uuid).map((k) => k.key_id);
    const otherApps = Array.from({ length: 9 }, () => randomUUID());
    const users = Array.from({ length: 200 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);
    const models = [
      ['fake', 'gpt-fake'],
      ['fake', 'gpt-fake-mini'],
      ['other', 'model-a'],
      ['other', 'model-b'],
    ] as const;
    const next = random(42);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
    const start = now - 30 * DAY;
    const insert = prepareUsageInsert(db);
    let appRows = 0;

    const began = performance.now();
    db.transaction(() => {
      for (let i = 0; i < rows; i++) {
        const ownApp = next() < 0.5;
        const byKey = !ownApp || next() < 0.4;
        const [provider, model] = pick(models);
        const roll = next();
        const status: UsageEvent['status'] = roll < 0.03 ? 'refused' : roll < 0.04 ? 'error' : 'ok';
        const inputTokens = status === 'refused' ? 0 : 10 + Math.floor(next() * 2000);
        const outputTokens = status === 'ok' ? 1 + Math.floor(next() * 500) : 0;
        const costMicro = inputTokens * 15 + outputTokens * 60;
        if (ownApp) appRows++;
        insert({
          requestId: `bench-${i}`,
          appUuid: ownApp ? owner.app_uuid : pick(otherApps),
          keyId: byKey ? (ownApp ? pick(keys) : 'key-other') : null,
          address: byKey ? null : pick(users),
          provider,
          model,
          operation: 'chat.completions',
          livemode: true,
          inputTokens,
          cacheReadTokens: Math.floor(inputTokens / 2),
          outputTokens,
          costMicro,
          latencyMs: 50 + Math.floor(next() * 500),
          ttftMs: null,
          status,
          errorCode: status === 'refused' ? 'insufficient_credits' : status === 'error' ? 'upstream_error' : null,
          at: new Date(start + Math.floor((i * 30 * DAY) / rows)).toISOString(),
        }, { costMicro, chargedMicro: costMicro });
      }
    })();
    const inserted = performance.now();
    db.transaction(() => {
      for (const table of ROLLUP_TABLES) db.exec(`DELETE FROM ${table}`);
      db.exec(backfillUsageRollupsSql);
      // Every row is in the rollups now: none is pending (usage-rollups.ts).
      db.exec('UPDATE usage_rollup_mark SET rolled_through = (SELECT COALESCE(MAX(id), 0) FROM usage_events)');
    })();
    const backfilled = performance.now();
    db.pragma('wal_checkpoint(TRUNCATE)');
    const rollupRows = Object.fromEntries(
      ROLLUP_TABLES.map((table) => [table, db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).get()?.n ?? 0]),
    );
    return {
      appUuid: owner.app_uuid,
      appRows,
      first: new Date(start).toISOString(),
      last: new Date(start + Math.floor(((rows - 1) * 30 * DAY) / rows)).toISOString(),
      insertSeconds: (inserted - began) / 1000,
      backfillSeconds: (backfilled - inserted) / 1000,
      rollupRows,
    };
  } finally {
    db.close();
  }
}
