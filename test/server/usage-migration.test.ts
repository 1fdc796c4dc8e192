import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/store/sqlite/database.js';
import { migrations } from '../../server/store/sqlite/migrations.js';
import { backfillUsageRollupsSql15 } from '../../server/store/usage-backfill.js';
import { onPostgres } from '../helpers/postgres.js';

/**
 * SQLite migration 23 on a database that already has usage: the rows written before modes are
 * live, except a test key's and a sandbox user's; the rollups are rebuilt with the mode in their
 * keys and hold exactly the rows. (The same statements run on PostgreSQL as its migration 11.)
 */
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe.skipIf(onPostgres)('migration 23: usage by mode', () => {
  it('keeps old usage live but for test keys and sandbox users, and rebuilds the rollups by mode', () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-usage-migration-'));
    const file = join(dir, 'svc.db');
    // A database as migration 22 left it (foreign keys off: only the rows the migration reads are made).
    const old = new Database(file);
    old.pragma('foreign_keys = OFF');
    for (const migration of migrations.filter((m) => m.version <= 22)) old.exec(migration.sql);
    old.pragma('user_version = 22');
    const at = '2026-03-01T12:00:00.000Z';
    old.exec(`
      INSERT INTO apps (app_uuid, developer_id, account_id, name, app_type, default_user_credits_micro, idp_app_id, created_at, updated_at)
        VALUES ('app-live', 'dev', 1, 'live idp', 'standard', 0, 'privy-app', '${at}', '${at}'),
               ('app-sandbox', 'dev', 2, 'sandbox idp', 'standard', 0, 'sandbox_app-sandbox', '${at}', '${at}');
      INSERT INTO api_keys (key_id, app_uuid, name, is_test, prefix, secret_hash, created_at)
        VALUES ('key-live', 'app-live', 'live', 0, 'svc_live_1', 'h1', '${at}'), ('key-test', 'app-live', 'test', 1, 'svc_test_1', 'h2', '${at}');
      INSERT INTO usage_events (request_id, app_uuid, key_id, address, provider, model, operation, input_tokens, output_tokens,
          cost_micro, charged_micro, latency_ms, status, created_at)
        VALUES ('r1', 'app-live', 'key-live', NULL, 'p', 'm', 'chat', 10, 5, 700, 700, 1, 'ok', '${at}'),
               ('r2', 'app-live', 'key-test', NULL, 'p', 'm', 'chat', 20, 6, 0, 0, 1, 'ok', '${at}'),
               ('r3', 'app-live', NULL, '0xabc', 'p', 'm', 'chat', 30, 7, 900, 900, 1, 'ok', '${at}'),
               ('r4', 'app-sandbox', NULL, '0xdef', 'p', 'm', 'chat', 40, 8, 0, 0, 1, 'ok', '${at}'),
               ('r5', 'app-sandbox', 'key-other', NULL, 'p', 'm', 'chat', 50, 9, 300, 300, 1, 'refused', '${at}');
      ${backfillUsageRollupsSql15}
    `);
    old.close();

    const db = openDatabase(file);
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(migrations.at(-1)?.version);
      expect(db.prepare('SELECT request_id, livemode, cache_read_tokens, attempts FROM usage_events ORDER BY request_id').all()).toEqual([
        { request_id: 'r1', livemode: 1, cache_read_tokens: 0, attempts: null },
        { request_id: 'r2', livemode: 0, cache_read_tokens: 0, attempts: null },
        { request_id: 'r3', livemode: 1, cache_read_tokens: 0, attempts: null },
        { request_id: 'r4', livemode: 0, cache_read_tokens: 0, attempts: null },
        { request_id: 'r5', livemode: 1, cache_read_tokens: 0, attempts: null },
      ]);
      const byMode = (table: string) =>
        db.prepare(`SELECT app_uuid, livemode, SUM(requests) AS requests, SUM(refused) AS refused, SUM(input_tokens) AS input, SUM(charged_micro) AS charged
          FROM ${table} GROUP BY app_uuid, livemode ORDER BY app_uuid, livemode`).all();
      const expected = [
        { app_uuid: 'app-live', livemode: 0, requests: 1, refused: 0, input: 20, charged: 0 },
        { app_uuid: 'app-live', livemode: 1, requests: 2, refused: 0, input: 40, charged: 1600 },
        { app_uuid: 'app-sandbox', livemode: 0, requests: 1, refused: 0, input: 40, charged: 0 },
        { app_uuid: 'app-sandbox', livemode: 1, requests: 1, refused: 1, input: 50, charged: 300 },
      ];
      for (const table of ['usage_hourly', 'usage_hourly_models', 'usage_daily_users', 'usage_hourly_users']) expect(byMode(table), table).toEqual(expected);
    } finally {
      db.close();
    }
  });
});
