import type { Db } from './database.js';
import type { Holds } from './holds.js';
import { APP_COLUMNS, KEY_COLUMNS, toApp, toKey, type AppRow, type KeyRow } from '../rows.js';
import type { KeyOwner, Store } from '../types.js';

type Candidates = (KeyOwner & { secretHash: string })[];

/**
 * API keys. Every request looks its key up, so lookups are cached in memory and the cache is
 * dropped on any write that could change an answer (`keyCache.clear`, also called by the apps
 * repository): a deleted key stops working on the very next request. Last-use times are written
 * only when the recorded one is stale.
 */
export function createApiKeysRepository(db: Db, holds: Holds, keyCache: Map<string, Candidates>): Store['apiKeys'] {
  const insert = db.prepare(
    `INSERT INTO api_keys (key_id, app_uuid, name, is_test, role, prefix, secret_hash, created_at, budget_credits_micro, budget_period, expires_at)
     VALUES (@keyId, @appUuid, @name, @isTest, @role, @prefix, @secretHash, @at, @budgetMicro, @budgetPeriod, @expiresAt)`,
  );
  // A changed budget starts afresh: what was spent under the old one does not count against the new.
  const setBudget = db.prepare(
    `UPDATE api_keys SET budget_credits_micro = ?, budget_period = ?, budget_window_start = NULL, budget_spent_micro = 0
     WHERE key_id = ? AND app_uuid = ? AND deleted_at IS NULL`,
  );
  const setExpiry = db.prepare('UPDATE api_keys SET expires_at = ? WHERE key_id = ? AND app_uuid = ? AND deleted_at IS NULL');
  const selectLive = db.prepare<[string, string], KeyRow>(
    `SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.key_id = ? AND k.app_uuid = ? AND k.deleted_at IS NULL`,
  );
  const selectOne = db.prepare<[string], KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.key_id = ?`);
  const selectPage = db.prepare<[string, number, number], KeyRow>(
    `SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.app_uuid = ? AND k.deleted_at IS NULL
     ORDER BY k.created_at DESC, k.key_id LIMIT ? OFFSET ?`,
  );
  const count = db.prepare<[string], { n: number }>(
    'SELECT COUNT(*) AS n FROM api_keys WHERE app_uuid = ? AND deleted_at IS NULL',
  );
  const softDelete = db.prepare(
    'UPDATE api_keys SET deleted_at = ? WHERE key_id = ? AND app_uuid = ? AND deleted_at IS NULL',
  );
  const selectByPrefix = db.prepare<[string], KeyRow & AppRow & { secret_hash: string }>(
    `SELECT ${KEY_COLUMNS}, k.secret_hash, ${APP_COLUMNS} FROM api_keys k
     JOIN apps a ON a.app_uuid = k.app_uuid JOIN accounts acc ON acc.id = a.account_id
     WHERE k.prefix = ? AND k.deleted_at IS NULL AND a.deleted_at IS NULL`,
  );
  const touch = db.prepare(
    'UPDATE api_keys SET last_used_at = ? WHERE key_id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
  );
  const lastTouched = new Map<string, string>();

  return {
    async create(key) {
      insert.run({
        ...key,
        isTest: key.isTest ? 1 : 0,
        budgetMicro: key.budget?.limitMicro ?? null,
        budgetPeriod: key.budget?.period ?? null,
        expiresAt: key.expiresAt ?? null,
      });
      keyCache.clear();
      const row = selectOne.get(key.keyId);
      if (!row) throw new Error(`key ${key.keyId} vanished`);
      return toKey(row);
    },

    async list(appUuid, page) {
      return {
        items: selectPage.all(appUuid, page.limit, page.offset).map(toKey),
        total: count.get(appUuid)?.n ?? 0,
      };
    },

    async delete(appUuid, keyId, at) {
      keyCache.clear();
      return softDelete.run(at, keyId, appUuid).changes === 1;
    },

    async update(appUuid, keyId, patch) {
      db.transaction(() => {
        if (patch.budget !== undefined) setBudget.run(patch.budget?.limitMicro ?? null, patch.budget?.period ?? null, keyId, appUuid);
        if (patch.expiresAt !== undefined) setExpiry.run(patch.expiresAt, keyId, appUuid);
      })();
      keyCache.clear();
      return this.get(appUuid, keyId);
    },

    async get(appUuid, keyId) {
      const row = selectLive.get(keyId, appUuid);
      return row ? toKey(row) : null;
    },

    async findByPrefix(prefix) {
      let candidates = keyCache.get(prefix);
      if (!candidates) {
        candidates = selectByPrefix.all(prefix).map((row) => ({ key: toKey(row), app: toApp(row, holds.of(row.account_id)), secretHash: row.secret_hash }));
        // Only hits: caching misses would let random keys grow the cache without bound.
        if (candidates.length > 0) keyCache.set(prefix, candidates);
      }
      return candidates;
    },

    async touch(keyId, at, staleBefore) {
      const last = lastTouched.get(keyId);
      if (last !== undefined && last >= staleBefore) return;
      touch.run(at, keyId, staleBefore);
      lastTouched.set(keyId, at);
    },
  };
}
