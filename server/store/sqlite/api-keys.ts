import type { Db } from './database.js';
import { APP_COLUMNS, KEY_COLUMNS, toApp, toKey, type AppRow, type KeyRow } from './rows.js';
import type { Store } from '../types.js';

export function createApiKeysRepository(db: Db): Store['apiKeys'] {
  const insert = db.prepare(
    `INSERT INTO api_keys (key_id, app_uuid, name, is_test, prefix, secret_hash, created_at)
     VALUES (@keyId, @appUuid, @name, @isTest, @prefix, @secretHash, @at)`,
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

  return {
    async create(key) {
      insert.run({ ...key, isTest: key.isTest ? 1 : 0 });
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
      return softDelete.run(at, keyId, appUuid).changes === 1;
    },

    async findByPrefix(prefix) {
      return selectByPrefix.all(prefix).map((row) => ({ key: toKey(row), app: toApp(row), secretHash: row.secret_hash }));
    },

    async touch(keyId, at, staleBefore) {
      touch.run(at, keyId, staleBefore);
    },
  };
}
