import type { Db } from './database.js';
import type { Accounts } from './accounts.js';
import type { Holds } from './holds.js';
import type { Ledger } from './ledger.js';
import { toUser, USER_COLUMNS, USER_FROM, type UserRow } from '../rows.js';
import type { AppUserRecord, Store } from '../types.js';

export function createUsersRepository(db: Db, ledger: Ledger, holds: Holds, accounts: Accounts): Store['users'] {
  const selectOne = db.prepare<[string, string], UserRow>(
    `SELECT ${USER_COLUMNS} FROM ${USER_FROM} WHERE u.app_uuid = ? AND u.address = ?`,
  );
  const selectPage = db.prepare<[string, number, number], UserRow>(
    `SELECT ${USER_COLUMNS} FROM ${USER_FROM} WHERE u.app_uuid = ? ORDER BY u.created_at DESC, u.address LIMIT ? OFFSET ?`,
  );
  const count = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM app_users WHERE app_uuid = ?');
  const selectApp = db.prepare<[string], { account_id: number; app_type: string; default_user_credits_micro: number }>(
    'SELECT account_id, app_type, default_user_credits_micro FROM apps WHERE app_uuid = ?',
  );
  const selectUserAccount = db.prepare<[string, string], { account_id: number }>(
    'SELECT account_id FROM app_users WHERE app_uuid = ? AND address = ?',
  );
  const insert = db.prepare(
    `INSERT INTO app_users (app_uuid, address, account_id, credit_limit_micro, created_at) VALUES (?, ?, ?, ?, ?)`,
  );
  const updateLimit = db.prepare('UPDATE app_users SET credit_limit_micro = ? WHERE app_uuid = ? AND address = ?');

  const read = (appUuid: string, address: string): AppUserRecord => {
    const row = selectOne.get(appUuid, address);
    if (!row) throw new Error(`no user ${address} in ${appUuid}`);
    return toUser(row, holds.of(row.account_id));
  };

  /** Inside a transaction: the user's account id, creating the user (and its grant) when new. */
  const ensureUser = (appUuid: string, address: string, at: string, test = false): number => {
    const existing = selectUserAccount.get(appUuid, address);
    if (existing) return existing.account_id;
    const app = selectApp.get(appUuid);
    if (!app) throw new Error(`no app ${appUuid}`);
    const accountId = ledger.openAccount();
    const pooled = app.app_type === 'pooled_api';
    insert.run(appUuid, address, accountId, pooled ? app.default_user_credits_micro : null, at);
    const grant = app.default_user_credits_micro;
    const key = `user-grant:${appUuid}:${address}`;
    if (test) {
      // Play money: the sandbox user sees its default credits, and the app's live balance stays.
      if (!pooled && grant > 0) {
        ledger.post(accounts.of({ kind: 'user', appUuid, address, test }), { amountMicro: grant, kind: 'test_grant', idempotencyKey: key, at });
      }
      return accountId;
    }
    if (!pooled && grant > 0) {
      ledger.post(app.account_id, { amountMicro: -grant, kind: 'user_grant', idempotencyKey: key, reference: address, at });
      ledger.post(accountId, { amountMicro: grant, kind: 'user_grant', idempotencyKey: key, reference: appUuid, at });
    }
    return accountId;
  };

  return {
    async list(appUuid, page) {
      return {
        items: selectPage.all(appUuid, page.limit, page.offset).map((row) => toUser(row, holds.of(row.account_id))),
        total: count.get(appUuid)?.n ?? 0,
      };
    },

    async get(appUuid, address) {
      const row = selectOne.get(appUuid, address);
      return row ? toUser(row, holds.of(row.account_id)) : null;
    },

    async ensure(appUuid, address, at, options = {}) {
      return db.transaction(() => {
        ensureUser(appUuid, address, at, options.test);
        return read(appUuid, address);
      })();
    },

    async topUp(appUuid, address, amountMicro, at) {
      return db.transaction(() => {
        const userAccount = ensureUser(appUuid, address, at);
        const app = selectApp.get(appUuid);
        if (!app) throw new Error(`no app ${appUuid}`);
        // Each top-up is its own event: the key only ties its two entries together.
        const key = `top-up:${appUuid}:${address}:${crypto.randomUUID()}`;
        ledger.post(app.account_id, { amountMicro: -amountMicro, kind: 'user_top_up', idempotencyKey: key, reference: address, at });
        ledger.post(userAccount, { amountMicro, kind: 'user_top_up', idempotencyKey: key, reference: appUuid, at });
        return read(appUuid, address);
      })();
    },

    async setCreditLimit(appUuid, address, limitMicro, at) {
      return db.transaction(() => {
        ensureUser(appUuid, address, at);
        updateLimit.run(limitMicro, appUuid, address);
        return read(appUuid, address);
      })();
    },
  };
}
