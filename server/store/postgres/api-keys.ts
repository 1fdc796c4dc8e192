import type { Sql } from './database.js';
import type { KeyCache } from './key-cache.js';
import { APP_COLUMNS, KEY_COLUMNS, toApp, toKey, type AppRow, type KeyRow } from '../rows.js';
import type { Store } from '../types.js';

export { createKeyCache, type KeyCache } from './key-cache.js';

/**
 * API keys. Every request looks its key up, so lookups are cached briefly (key-cache.ts): this
 * instance drops the cache on any write that could change an answer (`keyCache.clear`, also
 * called by the apps repository) once the write is committed, and other instances' writes show
 * within the cache's lifetime. Last-use times are written only when the recorded one is stale,
 * those of one turn by one statement.
 */
export function createApiKeysRepository(sql: Sql, keyCache: KeyCache): Store['apiKeys'] {
  const lastTouched = new Map<string, string>();
  // Keys touched in one turn of the event loop are written by one statement; each request waits
  // for its own (its answer may be followed by a read of the key).
  let queuedTouches = new Map<string, { at: string; staleBefore: string; waiters: { resolve(): void; reject(error: unknown): void }[] }>();
  const writeTouches = () => {
    const touches = [...queuedTouches];
    queuedTouches = new Map();
    // Conditional, so instances touching the same key at once write it once per period.
    sql`
      UPDATE api_keys SET last_used_at = touched.at
      FROM unnest(${touches.map(([keyId]) => keyId)}::text[], ${touches.map(([, t]) => t.at)}::text[], ${touches.map(([, t]) => t.staleBefore)}::text[])
        AS touched (key_id, at, stale_before)
      WHERE api_keys.key_id = touched.key_id
        AND (api_keys.last_used_at IS NULL OR api_keys.last_used_at COLLATE "C" < touched.stale_before)`.then(
      () => touches.forEach(([, t]) => t.waiters.forEach((waiter) => waiter.resolve())),
      (error: unknown) => touches.forEach(([, t]) => t.waiters.forEach((waiter) => waiter.reject(error))),
    );
  };

  return {
    async create(key) {
      // The trigger api_keys_test_never_admin refuses a test admin key, as SQLite's does.
      try {
        await sql`
          INSERT INTO api_keys (key_id, app_uuid, name, is_test, role, prefix, secret_hash, created_at, budget_credits_micro, budget_period, expires_at)
          VALUES (${key.keyId}, ${key.appUuid}, ${key.name}, ${key.isTest}, ${key.role}, ${key.prefix}, ${key.secretHash}, ${key.at},
                  ${key.budget?.limitMicro ?? null}, ${key.budget?.period ?? null}, ${key.expiresAt ?? null})`;
      } finally {
        keyCache.clear();
      }
      const [row] = await sql<KeyRow[]>`SELECT ${sql.unsafe(KEY_COLUMNS)} FROM api_keys k WHERE k.key_id = ${key.keyId}`;
      if (!row) throw new Error(`key ${key.keyId} vanished`);
      return toKey(row);
    },

    async list(appUuid, page) {
      const rows = await sql<KeyRow[]>`
        SELECT ${sql.unsafe(KEY_COLUMNS)} FROM api_keys k WHERE k.app_uuid = ${appUuid} AND k.deleted_at IS NULL
        ORDER BY k.created_at COLLATE "C" DESC, k.key_id COLLATE "C" LIMIT ${page.limit} OFFSET ${page.offset}`;
      const [count] = await sql<{ n: number }[]>`
        SELECT COUNT(*) AS n FROM api_keys WHERE app_uuid = ${appUuid} AND deleted_at IS NULL`;
      return { items: rows.map(toKey), total: count?.n ?? 0 };
    },

    async delete(appUuid, keyId, at) {
      try {
        const result = await sql`
          UPDATE api_keys SET deleted_at = ${at} WHERE key_id = ${keyId} AND app_uuid = ${appUuid} AND deleted_at IS NULL`;
        return result.count === 1;
      } finally {
        keyCache.clear();
      }
    },

    async update(appUuid, keyId, patch) {
      try {
        await sql.begin(async (tx) => {
          // A changed budget starts afresh: what was spent under the old one does not count against the new.
          if (patch.budget !== undefined) {
            await tx`
              UPDATE api_keys SET budget_credits_micro = ${patch.budget?.limitMicro ?? null}, budget_period = ${patch.budget?.period ?? null},
                budget_window_start = NULL, budget_spent_micro = 0
              WHERE key_id = ${keyId} AND app_uuid = ${appUuid} AND deleted_at IS NULL`;
          }
          if (patch.expiresAt !== undefined) {
            await tx`UPDATE api_keys SET expires_at = ${patch.expiresAt} WHERE key_id = ${keyId} AND app_uuid = ${appUuid} AND deleted_at IS NULL`;
          }
        });
      } finally {
        keyCache.clear();
      }
      return this.get(appUuid, keyId);
    },

    async get(appUuid, keyId) {
      const [row] = await sql<KeyRow[]>`
        SELECT ${sql.unsafe(KEY_COLUMNS)} FROM api_keys k WHERE k.key_id = ${keyId} AND k.app_uuid = ${appUuid} AND k.deleted_at IS NULL`;
      return row ? toKey(row) : null;
    },

    findByPrefix(prefix) {
      return keyCache.lookup(prefix, async () => {
        const rows = await sql<(KeyRow & AppRow & { secret_hash: string; held_micro: number })[]>`
          SELECT ${sql.unsafe(KEY_COLUMNS)}, k.secret_hash, ${sql.unsafe(APP_COLUMNS)}, acc.held_micro FROM api_keys k
          JOIN apps a ON a.app_uuid = k.app_uuid JOIN accounts acc ON acc.id = a.account_id
          WHERE k.prefix = ${prefix} AND k.deleted_at IS NULL AND a.deleted_at IS NULL`;
        return rows.map((row) => ({ key: toKey(row), app: toApp(row, row.held_micro), secretHash: row.secret_hash }));
      });
    },

    async touch(keyId, at, staleBefore) {
      const last = lastTouched.get(keyId);
      if (last !== undefined && last >= staleBefore) return;
      await new Promise<void>((resolve, reject) => {
        if (queuedTouches.size === 0) setImmediate(writeTouches);
        const queued = queuedTouches.get(keyId);
        if (queued) queued.waiters.push({ resolve, reject });
        else queuedTouches.set(keyId, { at, staleBefore, waiters: [{ resolve, reject }] });
      });
      lastTouched.set(keyId, at);
    },
  };
}
